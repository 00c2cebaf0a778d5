"""Test kits that drive real IO: the adapter conformance suite
(:mod:`io_bindings.testing.adapter_suite`)."""
