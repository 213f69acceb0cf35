"""`python -m flows.cli`: the same as the `accessbench` command."""

from flows.cli.app import main

raise SystemExit(main())
