"""Reports of runs: the data they read (data.py) and one module per format (text, md, html, ci) or kind (audit, fix)."""
