"""The inclusivity audit's stages in order: questions → responses → category_judgments → audit_metrics.

Same machinery as the PDF benchmark (`tasks.engine.runner`): each stage is skipped when its inputs are
unchanged, resumes from per-unit parts after a kill, and turns bad input or a failed call into
error rows. Nothing here knows about Prefect; `flows.audit` runs the stages as tasks.
"""

from __future__ import annotations

from tasks.audit.audit_metrics import AUDIT_METRICS_STAGE
from tasks.audit.category_judgments import JUDGMENTS_STAGE
from tasks.audit.config import AuditConfig
from tasks.audit.questions import QUESTIONS_STAGE
from tasks.audit.responses import RESPONSES_STAGE
from tasks.engine.pipeline import Pipeline
from tasks.engine.runner import Stage
from warehouse.tables import AUDIT_STAGE_NAMES, in_order

AUDIT_STAGE_LIST: tuple[Stage, ...] = in_order(AUDIT_STAGE_NAMES, (QUESTIONS_STAGE, RESPONSES_STAGE, JUDGMENTS_STAGE,
                                                                  AUDIT_METRICS_STAGE))
AUDIT_STAGES: dict[str, Stage] = {stage.name: stage for stage in AUDIT_STAGE_LIST}
AUDIT = Pipeline("audit", AuditConfig, AUDIT_STAGE_LIST)  # its order, reruns and resumes: tasks.engine.pipeline
