"""Prefect flows composing the stage tasks, and the `accessbench` command line."""
