"""Improving moves at one city: 2-opt, Or-opt and Lin–Kernighan steps, each over candidate lists."""
