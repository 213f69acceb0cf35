"""Stage bodies (plain functions) and their Prefect task wrappers (`tasks.prefect_tasks`)."""
