"""What the worker processes run for the stages that read the PDFs (render, layout, extract, transcript): each
document's work and its chain item (`tasks.engine.chain`). No module here imports pyarrow, the stages' table
schemas or the run's config: a worker loads PyMuPDF and pikepdf, not Arrow (issue 56). The stage modules
(`tasks.benchmark.render`, ...) declare the stages and build these functions' arguments in the run's process.
"""
