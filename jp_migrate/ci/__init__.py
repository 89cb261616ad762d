"""`jp-migrate check`: the CI gate over stores, tool sources and verify cases, from one config."""
