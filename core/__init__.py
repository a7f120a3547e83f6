"""The lowest layer: typed wire events, the error base and task ownership.

Every other package may import ``core``; ``core`` imports nothing of Viva's, so the one-way
dependency rule (server → realtime → agents/judge/audio → store) holds for it too.
"""
