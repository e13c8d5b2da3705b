//! The rate plot of a run: one host's transmit rate per flow (each QP is a flow: its own UDP
//! source port) over time, and one switch queue's depth with the ECN marking threshold, from
//! the fabric's time series. Rendered as SVG ([`RatePlot::svg`]) and, the same geometry in
//! pixels, as PNG ([`RatePlot::png`], with a built-in bitmap font: [`crate::raster`]).
use ferroce_fabric::{Fabric, FlowKey, NodeId, Ps, PS_PER_S};

use crate::raster::Canvas;

/// The series colours (the same in every rendering).
pub const COLOURS: [[u8; 3]; 10] = [
    [0x1f, 0x77, 0xb4],
    [0xff, 0x7f, 0x0e],
    [0x2c, 0xa0, 0x2c],
    [0xd6, 0x27, 0x28],
    [0x94, 0x67, 0xbd],
    [0x8c, 0x56, 0x4b],
    [0xe3, 0x77, 0xc2],
    [0x7f, 0x7f, 0x7f],
    [0xbc, 0xbd, 0x22],
    [0x17, 0xbe, 0xcf],
];
/// The queue depth's colour.
pub const QUEUE_COLOUR: [u8; 3] = [0xd6, 0x27, 0x28];

/// What is plotted.
#[derive(Clone, Debug)]
pub struct RatePlot {
    pub title_rates: String,
    pub title_queue: String,
    /// Time between samples, microseconds.
    pub sample_us: f64,
    /// Per flow: a label and its rate in each sample interval, Gb/s.
    pub rates: Vec<(String, Vec<f64>)>,
    /// The queue's depth at each sample, KB.
    pub depth_kb: Vec<f64>,
    /// A dashed line on the queue panel (the marking threshold), KB.
    pub threshold_kb: Option<f64>,
}

/// The geometry both renderings share.
pub struct Frame {
    pub w: f64,
    pub h: f64,
    pub left: f64,
    pub right: f64,
    /// (top, height) of the rates panel and of the queue panel.
    pub panels: [(f64, f64); 2],
}

impl Frame {
    /// The pixels inside panel `i`'s border: `[x0, x1) x [y0, y1)` as ((x0, y0), (x1, y1)).
    pub fn inside(&self, i: usize) -> ((u32, u32), (u32, u32)) {
        let (top, h) = self.panels[i];
        (
            (self.left as u32 + 1, top as u32 + 1),
            ((self.w - self.right) as u32, (top + h) as u32),
        )
    }
}

pub const FRAME: Frame = Frame {
    w: 900.0,
    h: 560.0,
    left: 70.0,
    right: 20.0,
    panels: [(40.0, 220.0), (320.0, 200.0)],
};

fn hex(c: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

impl RatePlot {
    /// From the fabric's samples ([`Fabric::sample_every`] with `sample_ps`): the flows `host`
    /// sent, and the queue of switch port `queue`.
    pub fn from_fabric(
        f: &Fabric,
        host: NodeId,
        queue: Option<(NodeId, usize)>,
        sample_ps: Ps,
        threshold_bytes: Option<u64>,
    ) -> RatePlot {
        let interval_s = sample_ps as f64 / PS_PER_S as f64;
        let rates = f
            .flow_tx_series()
            .iter()
            .filter(|((n, _), _)| *n == host)
            .map(|((_, k), v): (&(NodeId, FlowKey), &Vec<u64>)| {
                (
                    format!("UDP sport {}", k.sport),
                    v.iter()
                        .map(|b| *b as f64 * 8.0 / interval_s / 1e9)
                        .collect(),
                )
            })
            .collect();
        let depth_kb = queue.map_or(Vec::new(), |(n, p)| {
            f.port_series(n, p)
                .iter()
                .map(|s| s.depth.iter().sum::<u64>() as f64 / 1000.0)
                .collect()
        });
        let (title_rates, title_queue) = match queue {
            Some((n, p)) => (
                format!("{}'s transmit rate per flow (Gb/s)", f.name(host)),
                format!(
                    "{} -> {} egress queue (KB)",
                    f.name(n),
                    f.name(f.peer(n, p).0)
                ),
            ),
            None => (
                format!("{}'s transmit rate per flow (Gb/s)", f.name(host)),
                "no switch queue".into(),
            ),
        };
        RatePlot {
            title_rates,
            title_queue,
            sample_us: sample_ps as f64 / 1e6,
            rates,
            depth_kb,
            threshold_kb: threshold_bytes.map(|b| b as f64 / 1000.0),
        }
    }

    /// Samples on the time axis (at least 2).
    pub fn samples(&self) -> usize {
        self.depth_kb
            .len()
            .max(self.rates.iter().map(|(_, v)| v.len()).max().unwrap_or(0))
            .max(2)
    }

    /// The largest time, microseconds.
    pub fn t_max(&self) -> f64 {
        (self.samples() - 1) as f64 * self.sample_us
    }

    /// The top of each panel's value axis.
    pub fn y_max(&self) -> [f64; 2] {
        let r = self
            .rates
            .iter()
            .flat_map(|(_, v)| v.iter())
            .copied()
            .fold(1.0f64, f64::max);
        let q = self
            .depth_kb
            .iter()
            .copied()
            .fold(self.threshold_kb.unwrap_or(0.0) * 1.2, f64::max)
            .max(1.0);
        [r, q]
    }

    /// Pixel x of time `t` (us).
    pub fn x(&self, t: f64) -> f64 {
        let fr = &FRAME;
        fr.left + (fr.w - fr.left - fr.right) * t / self.t_max().max(1e-9)
    }

    /// Pixel y of value `v` in panel `panel`.
    pub fn y(&self, panel: usize, v: f64) -> f64 {
        let (top, ph) = FRAME.panels[panel];
        top + ph - ph * v / self.y_max()[panel]
    }

    /// The polylines: (panel, colour, points).
    pub fn lines(&self) -> Vec<(usize, [u8; 3], Vec<(f64, f64)>)> {
        let mut out = Vec::new();
        for (i, (_, v)) in self.rates.iter().enumerate() {
            let pts = v
                .iter()
                .enumerate()
                .map(|(j, r)| (self.x(j as f64 * self.sample_us), self.y(0, *r)))
                .collect();
            out.push((0, COLOURS[i % COLOURS.len()], pts));
        }
        let pts = self
            .depth_kb
            .iter()
            .enumerate()
            .map(|(j, d)| (self.x(j as f64 * self.sample_us), self.y(1, *d)))
            .collect();
        out.push((1, QUEUE_COLOUR, pts));
        out
    }

    /// The text labels: (x, y of the baseline, anchor -1 left / 0 middle / 1 right, text).
    pub fn labels(&self) -> Vec<(f64, f64, i8, String)> {
        let fr = &FRAME;
        let mut out = vec![
            (fr.left, 25.0, -1, self.title_rates.clone()),
            (
                fr.left,
                fr.panels[1].0 - 12.0,
                -1,
                match self.threshold_kb {
                    Some(k) => format!("{}; dashed: ECN Kmin {k:.0} KB", self.title_queue),
                    None => self.title_queue.clone(),
                },
            ),
        ];
        let ymax = self.y_max();
        for (pi, (top, ph)) in fr.panels.iter().enumerate() {
            for k in 0..=4 {
                let v = ymax[pi] * k as f64 / 4.0;
                out.push((
                    fr.left - 5.0,
                    top + ph - ph * k as f64 / 4.0 + 4.0,
                    1,
                    format!("{v:.1}"),
                ));
            }
            for k in 0..=5 {
                let t = self.t_max() * k as f64 / 5.0;
                out.push((self.x(t), top + ph + 15.0, 0, format!("{t:.0} us")));
            }
        }
        out
    }

    /// The same plot as a PNG image of [`FRAME`]'s size.
    pub fn png(&self) -> Vec<u8> {
        let fr = &FRAME;
        let mut c = Canvas::new(fr.w as u32, fr.h as u32, [255; 3]);
        for (top, ph) in fr.panels {
            c.rect(fr.left, top, fr.w - fr.left - fr.right, ph, [0; 3]);
        }
        for (i, (x, y, anchor, text)) in self.labels().into_iter().enumerate() {
            // the two titles larger than the axis labels
            let scale = if i < 2 { 2 } else { 1 };
            c.text(x, y, anchor, &text, scale, [0; 3]);
        }
        if let Some(k) = self.threshold_kb {
            let y = self.y(1, k);
            c.line(
                (fr.left, y),
                (fr.w - fr.right, y),
                [0x80; 3],
                1,
                Some((5, 4)),
            );
        }
        for (_, colour, pts) in self.lines() {
            for p in pts.windows(2) {
                c.line(p[0], p[1], colour, 2, None);
            }
            if let [p] = pts.as_slice() {
                c.line(*p, *p, colour, 2, None);
            }
        }
        c.png()
    }

    pub fn svg(&self) -> String {
        let fr = &FRAME;
        let (w, h) = (fr.w, fr.h);
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        );
        for (top, ph) in fr.panels {
            out += &format!(
                "<rect x=\"{}\" y=\"{top}\" width=\"{}\" height=\"{ph}\" fill=\"none\" stroke=\"black\"/>\n",
                fr.left,
                w - fr.left - fr.right
            );
        }
        for (x, y, anchor, text) in self.labels() {
            let a = ["start", "middle", "end"][(anchor + 1) as usize];
            out += &format!(
                "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{a}\">{}</text>\n",
                text.replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;")
            );
        }
        for (i, (panel, c, pts)) in self.lines().into_iter().enumerate() {
            let p: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            let title = if panel == 0 {
                format!("<title>{}</title>", self.rates[i].0)
            } else {
                String::new()
            };
            out += &format!(
                "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.3\" points=\"{}\">{title}</polyline>\n",
                hex(c),
                p.join(" ")
            );
        }
        if let Some(k) = self.threshold_kb {
            let y = self.y(1, k);
            out += &format!(
                "<line x1=\"{}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"gray\" stroke-dasharray=\"5,4\"/>\n",
                fr.left,
                w - fr.right
            );
        }
        out += "</svg>\n";
        out
    }
}
