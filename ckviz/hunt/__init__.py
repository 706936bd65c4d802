"""Hunting for the workload that starves a key worst under a discipline."""
