"""The load test: see loadtest/README.md."""
