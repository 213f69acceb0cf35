"""The stage engine both studies run on: a stage (`runner.Stage`), the pipeline driver (`pipeline.Pipeline`), run
options and config (`options`, `context`), worker processes and time limits (`isolation`), the Dask fan-out
(`fanout`, `cluster`, `warm_up`), failures and the tables every stage shares."""
