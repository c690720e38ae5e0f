"""What scripts/gpu-ops-check.py (on the GPU machine) and
scripts/ops-table.py (here) must agree on."""

# Ops whose values are random or uninitialized: a sample holding one
# compares shapes and dtypes only.
UNCOMPARED = ("aten::rand", "aten::randn", "aten::randperm", "aten::native_dropout",
              "aten::bernoulli", "aten::empty", "aten::empty_strided", "aten::randint",
              "aten::normal", "aten::uniform", "aten::multinomial", "aten::empty_permuted")


def values_comparable(ops):
    """Whether a sample whose graph holds `ops` has outputs to compare."""
    return not any(op.startswith(UNCOMPARED) for op in ops)
