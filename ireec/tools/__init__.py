"""Tools built on the runtime: ``benchmark`` (``ireec benchmark-module``, like
``iree-benchmark-module``)."""
