"""Flask blueprints: games (pages), play (moves), rules (rules pages and the dispute lab), api (JSON)."""
