//! RED-style ECN marking as DCQCN switches use it (Zhu et al., SIGCOMM 2015): below `kmin`
//! bytes of queue nothing is marked, between `kmin` and `kmax` a packet is marked with a
//! probability rising linearly from 0 to `pmax`, above `kmax` every ECN-capable packet is.

/// Marking thresholds of one egress queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Red {
    pub kmin: u64,
    pub kmax: u64,
    pub pmax: f64,
    /// `Some(w)`: mark on an exponentially weighted average of the queue depth, updated at
    /// every dequeue as `avg += w * (q - avg)`; `None`: on the instantaneous depth.
    pub average_weight: Option<f64>,
}

impl Red {
    /// Marking probability for a queue of `q` bytes.
    pub fn probability(&self, q: f64) -> f64 {
        if q <= self.kmin as f64 {
            0.0
        } else if q > self.kmax as f64 || self.kmax == self.kmin {
            1.0
        } else {
            self.pmax * (q - self.kmin as f64) / (self.kmax - self.kmin) as f64
        }
    }
}
