"""AccessBench's Prefect deployments: `deployments/prefect.yaml` (weekly benchmark, nightly synthetic, audit;
entrypoints in `flows/`), registered by `accessbench deploy` (`flows/deploy.py`, which the CLI runs)."""
