"""ckviz: see, prove and demo whether a multi-tenant job queue is fair."""

__version__ = "0.1.0"
