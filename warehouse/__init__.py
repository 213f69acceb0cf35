"""Artifact store (Parquet per stage per run, atomic writes) and the DuckDB catalog over it.

The package's names are imported when first asked for (PEP 562): a worker process that imports one light module of
it (`warehouse.text_columns`) loads no pyarrow (issue 56).
"""

from common.lazy_exports import lazy_exports

__getattr__ = lazy_exports(globals(), {"ArtifactStore": "warehouse.store", "StageRun": "warehouse.store",
                                       "SchemaError": "warehouse.schema", "conform": "warehouse.schema",
                                       "resolve_home": "warehouse.home"})

__all__ = ["ArtifactStore", "SchemaError", "StageRun", "conform", "resolve_home"]
