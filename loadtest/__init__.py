"""The load test of issue 6: see loadtest/README.md."""
