"""Candidate lists: for each city, the few partners the moves try to join it to.

Sources: `nearest` (the k nearest cities), `quadrant` (the nearest in each quadrant around the
city, for clustered instances) and `alpha` (α-nearness from minimum 1-trees under Held–Karp node
penalties, as LKH computes it). Each returns an (n, k) int64 array, best first, -1 padding rows of
cities with fewer partners.
"""
