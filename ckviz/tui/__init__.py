"""The terminal app: step a scenario's dequeue live and compare disciplines side by side.

The only package that imports Textual.
"""
