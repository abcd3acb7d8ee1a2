"""Helpers the tests share: the sandbox and real clusters they run against."""
