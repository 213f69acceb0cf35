"""The benchmark's stages, one module per stage (corpus → render → layout → extract → transcript → inputs → judge →
aggregate → metrics), and `registry.BENCHMARK`, the pipeline they make."""
