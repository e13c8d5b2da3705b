//! DCQCN parameters of the NIC's reaction and notification points, under the names mlx5 gives
//! them (`/sys/class/net/<if>/ecn/roce_rp/*`, `roce_np/*`), with mlx5's defaults.
//! docs/CONGESTION.md states what each one does in the NIC.
use crate::{Error, Result};
use ferroce_proto::host::regs;

/// The DCQCN parameters (`CC_RP_*`, `CC_NP_CNP_INTERVAL`, the CNP fields of `CFG_TRAFFIC` and
/// `CFG_PFC`). [`Default`] is the NIC's reset state (mlx5's defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DcqcnParams {
    /// Rate-increase timer period, us (1 ..= 1,048,575).
    pub rpg_time_reset: u32,
    /// Bytes per rate-increase event in 64-byte units (0 = byte counter off; ..= 32767).
    pub rpg_byte_reset: u32,
    /// Increase events before leaving fast recovery (1 ..= 65534).
    pub rpg_threshold: u32,
    /// Rate ceiling, Mb/s (0 = line rate).
    pub rpg_max_rate: u32,
    /// Additive increase, Mb/s.
    pub rpg_ai_rate: u32,
    /// Hyper increase, Mb/s.
    pub rpg_hai_rate: u32,
    /// Decrease shift: Rc -= Rc x alpha / 2^rpg_gd (0 ..= 31).
    pub rpg_gd: u32,
    /// Largest single decrease: the new rate is at least this percent of the old (0 ..= 100).
    pub rpg_min_dec_fac: u32,
    /// Rate floor, Mb/s.
    pub rpg_min_rate: u32,
    /// Rc and Rt on a QP's first CNP, Mb/s (0 = the ceiling).
    pub rate_to_set_on_first_cnp: u32,
    /// Alpha gain g of alpha = alpha x g / 1024 (0 ..= 1024).
    pub dce_tcp_g: u32,
    /// Alpha update period, us (1 ..= 1,048,575).
    pub dce_tcp_rtt: u32,
    /// At most one rate decrease per period, us (1 ..= 1,048,575).
    pub rate_reduce_monitor_period: u32,
    /// Alpha on the first CNP (0 ..= 1023).
    pub initial_alpha_value: u32,
    pub clamp_tgt_rate: bool,
    pub clamp_tgt_rate_after_time_inc: bool,
    /// Notification point: at most one CNP per QP per this many us (0 = one per marked packet).
    pub min_time_between_cnps: u32,
    /// DSCP of the CNPs the NIC sends (0 ..= 63).
    pub cnp_dscp: u32,
    /// 802.1p priority of the CNPs on tagged links, also their PFC class (0 ..= 7).
    pub cnp_802p_prio: u32,
}

impl Default for DcqcnParams {
    fn default() -> Self {
        DcqcnParams {
            rpg_time_reset: 300,
            rpg_byte_reset: 32767,
            rpg_threshold: 1,
            rpg_max_rate: 0,
            rpg_ai_rate: 5,
            rpg_hai_rate: 50,
            rpg_gd: 11,
            rpg_min_dec_fac: 50,
            rpg_min_rate: 1,
            rate_to_set_on_first_cnp: 0,
            dce_tcp_g: 1019,
            dce_tcp_rtt: 1,
            rate_reduce_monitor_period: 4,
            initial_alpha_value: 1023,
            clamp_tgt_rate: false,
            clamp_tgt_rate_after_time_inc: true,
            min_time_between_cnps: 4,
            cnp_dscp: 48,
            cnp_802p_prio: 6,
        }
    }
}

/// The largest timer period and rate the reaction point holds (20-bit registers).
const MAX_20: u32 = (1 << 20) - 1;

impl DcqcnParams {
    /// The mlx5 names of the parameters, in field order (`roce_rp/*`, then `roce_np/*`).
    pub const NAMES: [&'static str; 19] = [
        "rpg_time_reset",
        "rpg_byte_reset",
        "rpg_threshold",
        "rpg_max_rate",
        "rpg_ai_rate",
        "rpg_hai_rate",
        "rpg_gd",
        "rpg_min_dec_fac",
        "rpg_min_rate",
        "rate_to_set_on_first_cnp",
        "dce_tcp_g",
        "dce_tcp_rtt",
        "rate_reduce_monitor_period",
        "initial_alpha_value",
        "clamp_tgt_rate",
        "clamp_tgt_rate_after_time_inc",
        "min_time_between_cnps",
        "cnp_dscp",
        "cnp_802p_prio",
    ];

    /// True for the parameters that are on/off flags (`clamp_tgt_rate*`).
    pub fn is_flag(name: &str) -> bool {
        matches!(name, "clamp_tgt_rate" | "clamp_tgt_rate_after_time_inc")
    }

    /// Set the parameter of mlx5 name `name` (a flag: `value != 0`). `None` if no parameter has
    /// that name. Ranges are checked when the parameters are written ([`DcqcnParams::writes`]).
    pub fn set(&mut self, name: &str, value: u32) -> Option<()> {
        let f = match name {
            "rpg_time_reset" => &mut self.rpg_time_reset,
            "rpg_byte_reset" => &mut self.rpg_byte_reset,
            "rpg_threshold" => &mut self.rpg_threshold,
            "rpg_max_rate" => &mut self.rpg_max_rate,
            "rpg_ai_rate" => &mut self.rpg_ai_rate,
            "rpg_hai_rate" => &mut self.rpg_hai_rate,
            "rpg_gd" => &mut self.rpg_gd,
            "rpg_min_dec_fac" => &mut self.rpg_min_dec_fac,
            "rpg_min_rate" => &mut self.rpg_min_rate,
            "rate_to_set_on_first_cnp" => &mut self.rate_to_set_on_first_cnp,
            "dce_tcp_g" => &mut self.dce_tcp_g,
            "dce_tcp_rtt" => &mut self.dce_tcp_rtt,
            "rate_reduce_monitor_period" => &mut self.rate_reduce_monitor_period,
            "initial_alpha_value" => &mut self.initial_alpha_value,
            "min_time_between_cnps" => &mut self.min_time_between_cnps,
            "cnp_dscp" => &mut self.cnp_dscp,
            "cnp_802p_prio" => &mut self.cnp_802p_prio,
            "clamp_tgt_rate" => {
                self.clamp_tgt_rate = value != 0;
                return Some(());
            }
            "clamp_tgt_rate_after_time_inc" => {
                self.clamp_tgt_rate_after_time_inc = value != 0;
                return Some(());
            }
            _ => return None,
        };
        *f = value;
        Some(())
    }

    /// The register writes that apply these parameters (`CC_*` words only; the CNP DSCP and
    /// priority are fields of `CFG_TRAFFIC` and `CFG_PFC`, see [`DcqcnParams::cnp_fields`]),
    /// after checking every value against its range and `line_rate_mbps`. The error names the
    /// parameter.
    pub fn writes(&self, line_rate_mbps: u32) -> Result<Vec<(u32, u32)>> {
        let rate_max = line_rate_mbps.min(MAX_20);
        let checks: [(&'static str, u32, u32, u32); 18] = [
            (
                "rpg_time_reset out of range (1 ..= 1048575 us)",
                self.rpg_time_reset,
                1,
                MAX_20,
            ),
            (
                "rpg_byte_reset out of range (0 ..= 32767)",
                self.rpg_byte_reset,
                0,
                32767,
            ),
            (
                "rpg_threshold out of range (1 ..= 65534)",
                self.rpg_threshold,
                1,
                65534,
            ),
            (
                "rpg_max_rate above the line rate",
                self.rpg_max_rate,
                0,
                rate_max,
            ),
            (
                "rpg_ai_rate above the line rate",
                self.rpg_ai_rate,
                0,
                rate_max,
            ),
            (
                "rpg_hai_rate above the line rate",
                self.rpg_hai_rate,
                0,
                rate_max,
            ),
            ("rpg_gd out of range (0 ..= 31)", self.rpg_gd, 0, 31),
            (
                "rpg_min_dec_fac out of range (0 ..= 100)",
                self.rpg_min_dec_fac,
                0,
                100,
            ),
            (
                "rpg_min_rate above the line rate",
                self.rpg_min_rate,
                0,
                rate_max,
            ),
            (
                "rate_to_set_on_first_cnp above the line rate",
                self.rate_to_set_on_first_cnp,
                0,
                rate_max,
            ),
            (
                "dce_tcp_g out of range (0 ..= 1024)",
                self.dce_tcp_g,
                0,
                1024,
            ),
            (
                "dce_tcp_rtt out of range (1 ..= 1048575 us)",
                self.dce_tcp_rtt,
                1,
                MAX_20,
            ),
            (
                "rate_reduce_monitor_period out of range (1 ..= 1048575 us)",
                self.rate_reduce_monitor_period,
                1,
                MAX_20,
            ),
            (
                "initial_alpha_value out of range (0 ..= 1023)",
                self.initial_alpha_value,
                0,
                1023,
            ),
            (
                "min_time_between_cnps",
                self.min_time_between_cnps,
                0,
                u32::MAX,
            ),
            ("cnp_dscp out of range (0 ..= 63)", self.cnp_dscp, 0, 63),
            (
                "cnp_802p_prio out of range (0 ..= 7)",
                self.cnp_802p_prio,
                0,
                7,
            ),
            ("rpg_min_rate above rpg_max_rate", self.rpg_min_rate, 0, {
                if self.rpg_max_rate == 0 {
                    rate_max
                } else {
                    self.rpg_max_rate
                }
            }),
        ];
        for (what, v, lo, hi) in checks {
            if v < lo || v > hi {
                return Err(Error::InvalidArgument(what));
            }
        }
        let flags = self.clamp_tgt_rate as u32 | (self.clamp_tgt_rate_after_time_inc as u32) << 1;
        Ok(vec![
            (regs::CC_RP_TIME_RESET, self.rpg_time_reset),
            (regs::CC_RP_BYTE_RESET, self.rpg_byte_reset),
            (regs::CC_RP_THRESHOLD, self.rpg_threshold),
            (regs::CC_RP_AI_RATE, self.rpg_ai_rate),
            (regs::CC_RP_HAI_RATE, self.rpg_hai_rate),
            (regs::CC_RP_MIN_RATE, self.rpg_min_rate),
            (regs::CC_RP_MAX_RATE, self.rpg_max_rate),
            (regs::CC_RP_GD, self.rpg_gd),
            (regs::CC_RP_MIN_DEC_FAC, self.rpg_min_dec_fac),
            (regs::CC_RP_ALPHA_G, self.dce_tcp_g),
            (regs::CC_RP_ALPHA_PERIOD, self.dce_tcp_rtt),
            (regs::CC_RP_REDUCE_PERIOD, self.rate_reduce_monitor_period),
            (regs::CC_RP_INITIAL_ALPHA, self.initial_alpha_value),
            (regs::CC_RP_FLAGS, flags),
            (regs::CC_RP_FIRST_CNP_RATE, self.rate_to_set_on_first_cnp),
            (regs::CC_NP_CNP_INTERVAL, self.min_time_between_cnps),
        ])
    }

    /// `CFG_TRAFFIC` and `CFG_PFC` with the CNP DSCP and priority of these parameters put into
    /// their current values `traffic` and `pfc`.
    pub fn cnp_fields(&self, traffic: u32, pfc: u32) -> (u32, u32) {
        (
            regs::cfg_traffic::CNP_DSCP.set(traffic, self.cnp_dscp),
            regs::cfg_pfc::CNP_PRIO.set(pfc, self.cnp_802p_prio),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::DcqcnParams;

    /// Every mlx5 name sets its own field and no other; unknown names are refused.
    #[test]
    fn every_name_sets_one_field() {
        let d = DcqcnParams::default();
        let mut seen = std::collections::HashSet::new();
        for name in DcqcnParams::NAMES {
            let mut p = d;
            // a value no default has (flags: the opposite of the default)
            let v = if DcqcnParams::is_flag(name) { 7 } else { 4_321 };
            p.set(name, v).unwrap();
            if DcqcnParams::is_flag(name) {
                let mut q = d;
                q.set(name, 0).unwrap();
                assert_ne!(p, q, "{name}");
            } else {
                assert_ne!(p, d, "{name} changed nothing");
            }
            let dbg = format!("{p:?}");
            assert!(dbg.contains(&format!("{name}: ")), "{name} is a field");
            assert!(
                seen.insert(dbg),
                "{name} set the same field as another name"
            );
        }
        assert_eq!(DcqcnParams::default().set("rpg_nonsense", 1), None);
    }
}
