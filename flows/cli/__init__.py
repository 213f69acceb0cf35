"""The `accessbench` command line: `main` in flows/cli/app.py (the console script), one module per subcommand,
the options generated from the settings models (options.py) and the console helpers (console.py)."""
