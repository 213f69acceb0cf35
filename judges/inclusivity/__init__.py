"""Category judges for the disability-inclusivity audit: which disabilities a response covers, how deeply.

`get_category_judge("lexicon" | "embedding" | "llm:<model>")` resolves a judge; nothing here imports Prefect.
"""

from judges.inclusivity.base import CategoryVerdict, ResponseJudgment, get_category_judge
from judges.inclusivity.categories import CATEGORIES, CATEGORY_NAMES

__all__ = ["CATEGORIES", "CATEGORY_NAMES", "CategoryVerdict", "ResponseJudgment", "get_category_judge"]
