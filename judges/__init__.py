"""Judges: evidence bundle in, label + issues + remediation out (no Prefect here)."""
