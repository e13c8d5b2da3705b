//! A small RGB canvas for the plots' PNG rendering: lines (with a square brush), dashed
//! lines, rectangles, and text in a built-in 5x7 bitmap font (capitals, digits and the
//! punctuation the labels use; lower case is drawn as capitals), encoded with the `png`
//! crate. No system fonts, nothing outside the process.

/// An RGB image, row-major, 3 bytes a pixel.
pub struct Canvas {
    pub w: u32,
    pub h: u32,
    pub pix: Vec<u8>,
}

/// One glyph: 7 rows of 5 columns, `#` set.
type Glyph = [&'static str; 7];

const FONT: &[(char, Glyph)] = &[
    (
        '0',
        [
            ".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###.",
        ],
    ),
    (
        '1',
        [
            "..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###.",
        ],
    ),
    (
        '2',
        [
            ".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####",
        ],
    ),
    (
        '3',
        [
            "####.", "....#", "....#", ".###.", "....#", "....#", "####.",
        ],
    ),
    (
        '4',
        [
            "...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#.",
        ],
    ),
    (
        '5',
        [
            "#####", "#....", "####.", "....#", "....#", "#...#", ".###.",
        ],
    ),
    (
        '6',
        [
            "..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###.",
        ],
    ),
    (
        '7',
        [
            "#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#...",
        ],
    ),
    (
        '8',
        [
            ".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###.",
        ],
    ),
    (
        '9',
        [
            ".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##..",
        ],
    ),
    (
        'A',
        [
            ".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#",
        ],
    ),
    (
        'B',
        [
            "####.", "#...#", "#...#", "####.", "#...#", "#...#", "####.",
        ],
    ),
    (
        'C',
        [
            ".###.", "#...#", "#....", "#....", "#....", "#...#", ".###.",
        ],
    ),
    (
        'D',
        [
            "###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###..",
        ],
    ),
    (
        'E',
        [
            "#####", "#....", "#....", "####.", "#....", "#....", "#####",
        ],
    ),
    (
        'F',
        [
            "#####", "#....", "#....", "####.", "#....", "#....", "#....",
        ],
    ),
    (
        'G',
        [
            ".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####",
        ],
    ),
    (
        'H',
        [
            "#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#",
        ],
    ),
    (
        'I',
        [
            ".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###.",
        ],
    ),
    (
        'J',
        [
            "..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##..",
        ],
    ),
    (
        'K',
        [
            "#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#",
        ],
    ),
    (
        'L',
        [
            "#....", "#....", "#....", "#....", "#....", "#....", "#####",
        ],
    ),
    (
        'M',
        [
            "#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#",
        ],
    ),
    (
        'N',
        [
            "#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#",
        ],
    ),
    (
        'O',
        [
            ".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.",
        ],
    ),
    (
        'P',
        [
            "####.", "#...#", "#...#", "####.", "#....", "#....", "#....",
        ],
    ),
    (
        'Q',
        [
            ".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#",
        ],
    ),
    (
        'R',
        [
            "####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#",
        ],
    ),
    (
        'S',
        [
            ".####", "#....", "#....", ".###.", "....#", "....#", "####.",
        ],
    ),
    (
        'T',
        [
            "#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#..",
        ],
    ),
    (
        'U',
        [
            "#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.",
        ],
    ),
    (
        'V',
        [
            "#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#..",
        ],
    ),
    (
        'W',
        [
            "#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#.",
        ],
    ),
    (
        'X',
        [
            "#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#",
        ],
    ),
    (
        'Y',
        [
            "#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#..",
        ],
    ),
    (
        'Z',
        [
            "#####", "....#", "...#.", "..#..", ".#...", "#....", "#####",
        ],
    ),
    (
        '.',
        [
            ".....", ".....", ".....", ".....", ".....", ".##..", ".##..",
        ],
    ),
    (
        ',',
        [
            ".....", ".....", ".....", ".....", ".##..", "..#..", ".#...",
        ],
    ),
    (
        ':',
        [
            ".....", ".##..", ".##..", ".....", ".##..", ".##..", ".....",
        ],
    ),
    (
        ';',
        [
            ".....", ".##..", ".##..", ".....", ".##..", "..#..", ".#...",
        ],
    ),
    (
        '-',
        [
            ".....", ".....", ".....", "#####", ".....", ".....", ".....",
        ],
    ),
    (
        '+',
        [
            ".....", "..#..", "..#..", "#####", "..#..", "..#..", ".....",
        ],
    ),
    (
        '>',
        [
            ".#...", "..#..", "...#.", "....#", "...#.", "..#..", ".#...",
        ],
    ),
    (
        '<',
        [
            "...#.", "..#..", ".#...", "#....", ".#...", "..#..", "...#.",
        ],
    ),
    (
        '(',
        [
            "...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#.",
        ],
    ),
    (
        ')',
        [
            ".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#...",
        ],
    ),
    (
        '/',
        [
            ".....", "....#", "...#.", "..#..", ".#...", "#....", ".....",
        ],
    ),
    (
        '\'',
        [
            "..#..", "..#..", ".#...", ".....", ".....", ".....", ".....",
        ],
    ),
    (
        '%',
        [
            "##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##",
        ],
    ),
    (
        '_',
        [
            ".....", ".....", ".....", ".....", ".....", ".....", "#####",
        ],
    ),
    (
        '=',
        [
            ".....", ".....", "#####", ".....", "#####", ".....", ".....",
        ],
    ),
    (
        '?',
        [
            ".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#..",
        ],
    ),
];

fn glyph(c: char) -> Option<&'static Glyph> {
    let c = c.to_ascii_uppercase();
    FONT.iter().find(|(k, _)| *k == c).map(|(_, g)| g)
}

/// Pixels a character advances at `scale`.
pub fn advance(scale: u32) -> u32 {
    6 * scale
}

impl Canvas {
    pub fn new(w: u32, h: u32, bg: [u8; 3]) -> Canvas {
        Canvas {
            w,
            h,
            pix: bg.repeat((w * h) as usize),
        }
    }

    pub fn get(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.w + x) * 3) as usize;
        [self.pix[i], self.pix[i + 1], self.pix[i + 2]]
    }

    pub fn set(&mut self, x: i64, y: i64, c: [u8; 3]) {
        if x >= 0 && y >= 0 && (x as u32) < self.w && (y as u32) < self.h {
            let i = ((y as u32 * self.w + x as u32) * 3) as usize;
            self.pix[i..i + 3].copy_from_slice(&c);
        }
    }

    /// A line from (x0, y0) to (x1, y1) with a `brush` x `brush` square pen; `dash`: (on, off)
    /// pixels along the line.
    pub fn line(
        &mut self,
        (x0, y0): (f64, f64),
        (x1, y1): (f64, f64),
        c: [u8; 3],
        brush: i64,
        dash: Option<(u32, u32)>,
    ) {
        let (dx, dy) = (x1 - x0, y1 - y0);
        let steps = dx.abs().max(dy.abs()).ceil().max(1.0) as u32;
        for k in 0..=steps {
            if let Some((on, off)) = dash {
                if k % (on + off) >= on {
                    continue;
                }
            }
            let t = k as f64 / steps as f64;
            let (x, y) = ((x0 + dx * t).round() as i64, (y0 + dy * t).round() as i64);
            for bx in 0..brush {
                for by in 0..brush {
                    self.set(x + bx - brush / 2, y + by - brush / 2, c);
                }
            }
        }
    }

    /// The outline of a rectangle.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, c: [u8; 3]) {
        let corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y)];
        for p in corners.windows(2) {
            self.line(p[0], p[1], c, 1, None);
        }
    }

    /// Text with its baseline at `y`; `anchor` -1: starts at `x`, 0: centred on it, 1: ends at
    /// it. Characters the font lacks are left blank.
    pub fn text(&mut self, x: f64, y: f64, anchor: i8, s: &str, scale: u32, c: [u8; 3]) {
        let width = s.chars().count() as f64 * advance(scale) as f64;
        let x0 = match anchor {
            -1 => x,
            0 => x - width / 2.0,
            _ => x - width,
        }
        .round() as i64;
        let top = y.round() as i64 - 7 * scale as i64;
        for (i, ch) in s.chars().enumerate() {
            let Some(g) = glyph(ch) else { continue };
            let gx = x0 + (i as u32 * advance(scale)) as i64;
            for (r, row) in g.iter().enumerate() {
                for (col, b) in row.bytes().enumerate() {
                    if b != b'#' {
                        continue;
                    }
                    for sx in 0..scale as i64 {
                        for sy in 0..scale as i64 {
                            self.set(
                                gx + col as i64 * scale as i64 + sx,
                                top + r as i64 * scale as i64 + sy,
                                c,
                            );
                        }
                    }
                }
            }
        }
    }

    /// The image as a PNG file (8-bit RGB).
    pub fn png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.w, self.h);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().expect("PNG header into memory");
            w.write_image_data(&self.pix).expect("PNG data into memory");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_glyph_is_5_by_7_and_the_labels_are_covered() {
        for (c, g) in FONT {
            assert!(g.iter().all(|r| r.len() == 5), "{c}");
        }
        for c in "0123456789 us Gb/s KB (Spine-1 -> Leaf-2); dashed: ECN Kmin 200 KB A's".chars() {
            assert!(c == ' ' || glyph(c).is_some(), "{c}");
        }
    }

    #[test]
    fn text_and_lines_land_where_asked() {
        let mut c = Canvas::new(40, 20, [255; 3]);
        c.text(1.0, 8.0, -1, "1", 1, [0; 3]);
        // '1' row 0 is "..#..": column 2 of the glyph at y = 8 - 7
        assert_eq!(c.get(3, 1), [0; 3]);
        assert_eq!(c.get(1, 1), [255; 3]);
        c.line((10.0, 15.0), (30.0, 15.0), [1, 2, 3], 1, None);
        assert!((10..=30).all(|x| c.get(x, 15) == [1, 2, 3]));
        let png = c.png();
        assert_eq!(&png[1..4], b"PNG");
    }
}
