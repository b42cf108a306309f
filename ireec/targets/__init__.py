"""Code-generation targets: a small class per target (toolchain, flags, templates)."""
from .c import CTarget, OpenMPTarget, get_target  # noqa: F401
