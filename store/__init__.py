"""Redis-held state shared by every part: versioned documents, session event streams, profiles."""
