"""AccessBench's Prefect deployments: defined in `prefect.yaml` at the project root (entrypoints in `flows/`),
registered by `accessbench deploy` (`flows/deploy.py`)."""
