"""Pictures of `amsolve explain`: one frame per decoding step, animated into a GIF (matplotlib, optional).

A frame shows the cities coloured by the probability the model gives each of being chosen next
(log scale; visited cities grey), the partial tour, the chosen edge, and, where the step leaves
the reference tour, the reference edges it could have taken. With `heads`, small multiples show
each glimpse head's attention over the cities at the same step. The last frame shows the closed
tour, its edges that are not on the reference tour in red.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from amsolve.errors import InputError
from amsolve.explanation import Explanation
from amsolve.figures import pyplot, save_figure
from amsolve.files import atomic_write
from amsolve.render import format_length, format_probability

GIF_MAX_CITIES = 200
"""Larger instances are refused: their frames are crowded and the GIF has a frame per city."""

PROBABILITY_FLOOR = 1e-4
"""The colour scale runs from this probability (and below) to 1, logarithmically."""

STEP_MILLISECONDS, LAST_FRAME_MILLISECONDS = 350, 3000
FRAME_DPI = 80

UNVISITED_COLORMAP, HEAD_COLORMAP = "viridis_r", "magma_r"
TOUR_COLOR, CHOSEN_COLOR, REFERENCE_COLOR, VISITED_COLOR, OFF_REFERENCE_COLOR = (
    "#333333",
    "#e8590c",
    "#2b8a3e",
    "#bbbbbb",
    "#d6336c",
)


def check_gif_size(n: int) -> None:
    """An InputError for instances with more cities than a readable animation holds."""
    if n > GIF_MAX_CITIES:
        raise InputError(f"--gif draws at most {GIF_MAX_CITIES} cities (a frame per step); this instance has {n:,}")


class FrameDrawer:
    """One matplotlib figure whose artists are updated for each step, then drawn to an image."""

    def __init__(self, explanation: Explanation, heads: bool) -> None:
        if heads and explanation.glimpse is None:
            raise ValueError("heads need an explanation made with glimpse=True")
        plt = pyplot()
        from matplotlib import colormaps, patheffects
        from matplotlib.cm import ScalarMappable
        from matplotlib.colors import LogNorm

        self.plt = plt
        self.explanation = explanation
        self.coords = explanation.instance.planar_coords
        self.scale = ScalarMappable(LogNorm(PROBABILITY_FLOOR, 1.0, clip=True), UNVISITED_COLORMAP)
        self.head_colours = colormaps[HEAD_COLORMAP]
        count = 0 if not heads else explanation.glimpse.shape[1]
        size = 5.2 if explanation.n <= 60 else 4.2 if explanation.n <= 120 else 3.4  # marker area, points²
        self._layout(count)
        self.cities = self._scatter(self.axes, size * 9)
        self.path = self.axes.plot([], [], "-", color=TOUR_COLOR, linewidth=1.3, zorder=2)[0]
        self.chosen_edge = self.axes.plot([], [], "-", color=CHOSEN_COLOR, linewidth=3.0, zorder=4)[0]
        self.reference_edges = self.axes.plot([], [], "--", color=REFERENCE_COLOR, linewidth=2.0, zorder=3)[0]
        self.first = self.axes.plot([], [], "s", color="black", markersize=8, zorder=5)[0]
        self.current = self.axes.plot([], [], "o", mfc="none", mec="black", markersize=11, mew=2, zorder=5)[0]
        self.chosen = self.axes.plot([], [], "o", mfc="none", mec=CHOSEN_COLOR, markersize=13, mew=2.5, zorder=5)[0]
        self.off_reference = self.axes.plot([], [], "-", color=OFF_REFERENCE_COLOR, linewidth=2.6, zorder=3)[0]
        outline = [patheffects.withStroke(linewidth=2.5, foreground="white")]
        self.labels = [self.axes.text(0, 0, "", fontsize=8, zorder=6, path_effects=outline) for _ in range(3)]
        colorbar = self.figure.colorbar(self.scale, cax=self.colorbar_axes)
        colorbar.set_label("probability of being chosen next (visited cities grey)")
        self.head_cities = [self._scatter(axes, size * 2.5) for axes in self.head_axes]
        self.head_markers = [
            axes.plot([], [], "o", mfc="none", mec="black", markersize=5, mew=1.2)[0] for axes in self.head_axes
        ]
        self.head_titles = [axes.set_title("", fontsize=9) for axes in self.head_axes]
        self._frame_axes()

    def _layout(self, heads: int) -> None:
        """Places the axes at fixed positions (nothing moves between frames), sized to the cities'
        aspect ratio: the map, its colour bar and, for `heads` heads, two rows of small maps."""
        span = np.ptp(self.coords, axis=0)
        aspect = float(np.clip(span[1] / span[0] if span[0] > 0 else 1.0, 0.45, 1.4))  # height / width
        margin, title, width = 0.15, 0.75, 6.0  # inches
        height = width * aspect
        columns = (heads + 1) // 2
        cell_width = 1.75
        cell_height, cell_title, note = cell_width * aspect, 0.3, 0.6
        heads_height = 2 * (cell_height + cell_title) + note if heads else 0.0
        figure_width = margin + width + 1.35 + (columns * (cell_width + 0.12) + margin if heads else 0.0)
        figure_height = max(margin + height + title, margin + heads_height + margin)
        self.figure = self.plt.figure(figsize=(figure_width, figure_height))

        def place(left: float, bottom: float, w: float, h: float) -> Any:
            return self.figure.add_axes(
                (left / figure_width, bottom / figure_height, w / figure_width, h / figure_height)
            )

        self.axes = place(margin, margin, width, height)
        self.colorbar_axes = place(margin + width + 0.2, margin + 0.1 * height, 0.15, 0.8 * height)
        left = margin + width + 1.35
        top = figure_height - margin - note
        self.head_axes = [
            place(
                left + (head // 2) * (cell_width + 0.12),
                top - (head % 2 + 1) * (cell_height + cell_title),
                cell_width,
                cell_height,
            )
            for head in range(heads)
        ]
        self.head_notes = []
        if heads:
            text = "each glimpse head's attention over the cities\n(colour scaled to the head's largest weight)"
            middle = (left + columns * (cell_width + 0.12) / 2) / figure_width
            top = 1 - (margin + 0.05) / figure_height
            self.head_notes.append(self.figure.text(middle, top, text, ha="center", va="top", fontsize=10))

    def _scatter(self, axes: Any, area: float) -> Any:
        """All cities as one scatter, coloured by `_colour`."""
        return axes.scatter(
            self.coords[:, 0], self.coords[:, 1], s=area, color=VISITED_COLOR, edgecolors="#555555",
            linewidths=0.4, zorder=1,
        )  # fmt: skip

    def _frame_axes(self) -> None:
        """Equal aspect, a margin around the cities, no ticks: the picture is about the cities."""
        low, high = self.coords.min(axis=0), self.coords.max(axis=0)
        margin = 0.04 * max(float((high - low).max()), 1e-9)
        for axes in [self.axes, *self.head_axes]:
            axes.set_xlim(low[0] - margin, high[0] + margin)
            axes.set_ylim(low[1] - margin, high[1] + margin)
            axes.set_aspect("equal")
            axes.set_xticks([])
            axes.set_yticks([])

    def _colour(self, scatter: Any, values: np.ndarray, visited: np.ndarray) -> None:
        """Colours cities by probabilities `values` on the log scale, visited ones grey."""
        self._paint(scatter, self.scale.to_rgba(np.maximum(values, PROBABILITY_FLOOR)), visited)

    def _colour_head(self, scatter: Any, weights: np.ndarray, visited: np.ndarray) -> None:
        """Colours cities by a head's attention `weights`, linearly from 0 to their largest."""
        self._paint(scatter, self.head_colours(weights / max(float(weights.max()), 1e-12)), visited)

    @staticmethod
    def _paint(scatter: Any, colours: np.ndarray, visited: np.ndarray) -> None:
        """Gives the cities the colours (n, 4), visited ones grey."""
        from matplotlib.colors import to_rgba

        colours[visited] = to_rgba(VISITED_COLOR)
        scatter.set_facecolors(colours)

    def _segments(self, pairs: list[tuple[int, int]]) -> tuple[list[float], list[float]]:
        """Line data drawing each (a, b) as a separate segment (NaN breaks the line)."""
        xs: list[float] = []
        ys: list[float] = []
        for a, b in pairs:
            xs += [self.coords[a, 0], self.coords[b, 0], np.nan]
            ys += [self.coords[a, 1], self.coords[b, 1], np.nan]
        return xs, ys

    def draw_step(self, number: int) -> None:
        """Step `number` (1 to n): the distribution the model chose from, and its choice."""
        explanation, ids = self.explanation, self.explanation.instance.ids
        step = explanation.step(number)
        tour = explanation.tour
        visited = np.zeros(explanation.n, dtype=bool)
        visited[tour[: number - 1]] = True
        self._colour(self.cities, explanation.probabilities[number - 1], visited)
        path = tour[: number - 1]  # the first city is marked once it is in the tour
        self.path.set_data(self.coords[path, 0], self.coords[path, 1])
        self.first.set_data(self.coords[path[:1], 0], self.coords[path[:1], 1])
        self.chosen.set_data([self.coords[step.chosen, 0]], [self.coords[step.chosen, 1]])
        if step.current is None:
            self.current.set_data([], [])
            self.chosen_edge.set_data([], [])
        else:
            self.current.set_data([self.coords[step.current, 0]], [self.coords[step.current, 1]])
            self.chosen_edge.set_data(*self._segments([(step.current, step.chosen)]))
        neighbours = explanation.reference_neighbours
        reference_pairs = []
        if step.follows_reference is False and neighbours is not None and step.current is not None:
            reference_pairs = [(step.current, int(city)) for city in neighbours[step.current] if not visited[city]]
        self.reference_edges.set_data(*self._segments(reference_pairs))
        self.off_reference.set_data([], [])
        labelled = [step.chosen, *step.candidates[1 : len(self.labels)].tolist()]
        for text, city in zip(self.labels, labelled + [None] * (len(self.labels) - len(labelled)), strict=False):
            self._label(text, city, bold=city == step.chosen)
        for artist in [*self.head_axes, *self.head_notes]:
            artist.set_visible(True)
        for head, (scatter, marker, head_title, weights) in enumerate(
            zip(self.head_cities, self.head_markers, self.head_titles, self._head_weights(number), strict=True)
        ):
            self._colour_head(scatter, weights, visited)
            marker.set_data([self.coords[step.chosen, 0]], [self.coords[step.chosen, 1]])
            head_title.set_text(f"head {head + 1} · largest {weights.max():.2f}")
        at = "start" if step.current is None else f"at {ids[step.current]}"
        title = f"{explanation.instance.name} · step {number} of {explanation.n} · {at} → {ids[step.chosen]}"
        title += f"\np {format_probability(step.probability)} · entropy {step.entropy:.2f} nats"
        if step.follows_reference is False:
            title += f" · leaves the {explanation.reference_name}"
        self.axes.set_title(
            title, fontsize=11, color=OFF_REFERENCE_COLOR if step.follows_reference is False else "black"
        )

    def draw_final(self) -> None:
        """The closed tour and its length; edges not on the reference tour in red."""
        explanation = self.explanation
        tour = explanation.tour
        self._colour(self.cities, np.zeros(explanation.n), np.ones(explanation.n, dtype=bool))
        closed = np.append(tour, tour[0])
        self.path.set_data(self.coords[closed, 0], self.coords[closed, 1])
        self.first.set_data(self.coords[tour[:1], 0], self.coords[tour[:1], 1])
        for artist in (self.current, self.chosen, self.chosen_edge, self.reference_edges):
            artist.set_data([], [])
        for text in self.labels:
            self._label(text, None)
        neighbours = explanation.reference_neighbours
        title = f"{explanation.instance.name} · greedy tour · length {format_length(explanation.length)}"
        if explanation.gap_pct is not None:
            reference = format_length(explanation.instance.reference_length)
            title += f"\n{explanation.reference_name.split()[0]} {reference} · gap {explanation.gap_pct:.2f} %"
        if neighbours is not None:
            edges = list(zip(closed[:-1].tolist(), closed[1:].tolist(), strict=True))
            wrong = [(a, b) for a, b in edges if b not in neighbours[a]]
            self.off_reference.set_data(*self._segments(wrong))
            title += f" · {len(wrong)} of {explanation.n} edges off the {explanation.reference_name} (red)"
        for artist in [*self.head_axes, *self.head_notes]:
            artist.set_visible(False)  # the heads have nothing to show once the tour is closed
        self.axes.set_title(title, fontsize=11, color="black")

    def _head_weights(self, number: int) -> list[np.ndarray]:
        """Each head's glimpse attention (n,) at step `number`; none without heads."""
        glimpse = self.explanation.glimpse
        return list(glimpse[number - 1]) if self.head_axes and glimpse is not None else []

    def _label(self, text: Any, city: int | None, bold: bool = False) -> None:
        """Writes a city's id beside it (or hides the label)."""
        if city is None:
            text.set_text("")
            return
        offset = 0.012 * float(np.ptp(self.coords, axis=0).max() or 1.0)
        text.set_position((self.coords[city, 0] + offset, self.coords[city, 1] + offset))
        text.set_text(str(self.explanation.instance.ids[city]))
        text.set_fontweight("bold" if bold else "normal")

    def draw(self, number: int) -> None:
        """Step `number` (1 to n), or with n + 1 the closed tour."""
        if number == self.explanation.n + 1:
            self.draw_final()
        else:
            self.draw_step(number)

    def image(self, number: int) -> Any:
        """Frame `number` (as `draw` numbers them) as an RGB Pillow image."""
        from PIL import Image

        self.draw(number)
        self.figure.canvas.draw()
        return Image.fromarray(np.asarray(self.figure.canvas.buffer_rgba())[..., :3].copy())

    def close(self) -> None:
        self.plt.close(self.figure)


def animate(path: Path, explanation: Explanation, heads: bool = False, force: bool = False) -> int:
    """Writes the GIF of `explanation`: a frame per step and a last one with the closed tour.

    Returns the number of frames. All frames share one palette, so colours do not flicker.
    """
    check_gif_size(explanation.n)
    if path.exists() and not force:
        raise InputError(f"{path}: file exists; use --force to overwrite")
    drawer = FrameDrawer(explanation, heads)
    drawer.figure.set_dpi(FRAME_DPI)
    try:
        numbers = [*range(1, explanation.n + 1), explanation.n + 1]  # every step, then the closed tour
        palette = _shared_palette([drawer.image(number) for number in (1, explanation.n // 2 + 1, numbers[-1])])
        indexed = [drawer.image(number).quantize(palette=palette, dither=0) for number in numbers]  # 1 byte a pixel
    finally:
        drawer.close()
    durations = [STEP_MILLISECONDS] * explanation.n + [LAST_FRAME_MILLISECONDS]

    def write(file: io.BufferedIOBase) -> None:
        indexed[0].save(file, format="GIF", save_all=True, append_images=indexed[1:], duration=durations, loop=0)

    try:
        atomic_write(path, write)
    except OSError as error:
        raise InputError(f"{path}: cannot write: {error.strerror or error}") from None
    return len(indexed)


def _shared_palette(frames: list[Any]) -> Any:
    """One 256-colour palette for all frames, from a strip of a few of them (first, middle, last)."""
    from PIL import Image

    width, height = frames[0].size
    strip = Image.new("RGB", (width, height * len(frames)))
    for index, frame in enumerate(frames):
        strip.paste(frame, (0, height * index))
    return strip.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=0)


def save_frame(path: Path, explanation: Explanation, number: int, heads: bool = False, force: bool = False) -> None:
    """Draws step `number` (or, with n + 1, the closed tour) of an explanation into a PNG file."""
    drawer = FrameDrawer(explanation, heads)
    drawer.draw(number)
    save_figure(drawer.figure, path, force)
