"""Repairs: `accessbench fix` (`fix`), its mechanical remedies (`remedies`), what it refuses and checks (`guards`),
and the table it writes (`schema`)."""
