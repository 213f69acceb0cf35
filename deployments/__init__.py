"""Prefect deployments of the benchmark flow."""
