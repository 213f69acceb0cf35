"""AccessBench's Prefect deployments: defined in `prefect.yaml` at the project root, registered here."""
