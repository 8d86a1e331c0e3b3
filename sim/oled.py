"""Show a 128x64 SSD1306 frame (MONO_VLSB bytes) the way the OLED shows it.

The board sends the app's 1024-byte buffer to the SSD1306 unchanged: byte
`page*128 + x` holds pixels (x, 8*page .. 8*page+7), top pixel in bit 0.
These helpers turn that into text (Unicode half blocks, two pixel rows per
character cell) and PNG images, pixel for pixel.
"""
WIDTH = 128
HEIGHT = 64


def lit(frame, x, y):
    return (frame[(y >> 3) * WIDTH + x] >> (y & 7)) & 1


def rows(frame):
    """The frame as HEIGHT lists of WIDTH 0/1 ints."""
    return [[lit(frame, x, y) for x in range(WIDTH)] for y in range(HEIGHT)]


# Upper pixel, lower pixel -> character.
_HALF = {(0, 0): " ", (1, 0): "\u2580", (0, 1): "\u2584", (1, 1): "\u2588"}


def halfblock_lines(frame):
    """32 strings of 128 characters: each cell is two vertical pixels."""
    out = []
    for y in range(0, HEIGHT, 2):
        out.append("".join(_HALF[(lit(frame, x, y), lit(frame, x, y + 1))] for x in range(WIDTH)))
    return out


def to_image(frame, scale=1, on=(255, 255, 255), off=(0, 0, 0)):
    """A Pillow RGB image of the frame (lit pixels `on`, dark ones `off`)."""
    from PIL import Image
    img = Image.new("RGB", (WIDTH, HEIGHT))
    img.putdata([on if lit(frame, x, y) else off for y in range(HEIGHT) for x in range(WIDTH)])
    if scale != 1:
        img = img.resize((WIDTH * scale, HEIGHT * scale), Image.NEAREST)
    return img


def save_png(frame, path, scale=1):
    to_image(frame, scale).save(str(path), format="PNG")


def from_image(path):
    """Read a PNG written by save_png (scale 1) back into 1024 frame bytes."""
    from PIL import Image
    img = Image.open(str(path)).convert("L")
    if img.size != (WIDTH, HEIGHT):
        raise ValueError("expected a %dx%d image, got %r" % (WIDTH, HEIGHT, img.size))
    frame = bytearray(WIDTH * HEIGHT // 8)
    px = img.load()
    for y in range(HEIGHT):
        for x in range(WIDTH):
            if px[x, y] >= 128:
                frame[(y >> 3) * WIDTH + x] |= 1 << (y & 7)
    return bytes(frame)


class ScreenWriter:
    """Writes numbered PNGs of the OLED into a directory (--screens DIR):
    0000-boot.png, 0001-line3.png, ... (the label names the script line)."""

    def __init__(self, directory, scale=1):
        import os
        self.dir = str(directory)
        self.scale = scale
        os.makedirs(self.dir, exist_ok=True)
        self.written = []

    def write(self, frame, n, label):
        import os
        path = os.path.join(self.dir, "%04d-%s.png" % (n, label))
        save_png(frame, path, self.scale)
        self.written.append(path)
        return path
