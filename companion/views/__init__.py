"""Flask blueprints: games (pages), play (moves), api (JSON)."""
