"""Column names the workers that read PDFs fill without the tables' Arrow schemas (no pyarrow: issue 56);
`warehouse.tables` declares the columns with these names."""

# text_spans carries each span's contrast against its rendered background (DESIGN: text_spans).
CONTRAST_COLUMNS = ("background_color", "contrast_ratio", "large_text", "threshold", "passes", "invisible",
                    "invisible_reason")
