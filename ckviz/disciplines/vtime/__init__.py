"""Virtual time, natively: the reference's production fair dequeue, whose state lives in Redis.

Everything vtime is here: its Lua (`lua/`), its door (`door.py`: scripts, state keys, ARGV,
which version a name means), its replies, its knobs (`knobs.py`, declared once: the files'
models are made from them, so this package's `__init__` imports nothing), its values
(`values.py`), and the discipline the driver consults with its registry entries
(`discipline.py`).
"""
