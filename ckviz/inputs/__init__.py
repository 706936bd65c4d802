"""What a run reads: scenario and matrix files, recorded traces, and the seeded workloads
sampled from a scenario's keys."""
