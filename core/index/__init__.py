"""In-memory search structures of a chat (vectors, words): pure data structures, no I/O.

The store adapter builds and feeds them; the domain reads them through the GraphStore port.
"""
