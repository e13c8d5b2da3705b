//! The device: bring-up, identity and limits, global configuration, events, counters.

use core::time::Duration;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ferroce_proto::host::config::{
    self, GidEntry, PfcConfig, PfcXoffConfig, TrafficConfig, UdpSportPolicy,
};
use ferroce_proto::host::event::AsyncEvent;
use ferroce_proto::host::mr::MrEntry;
use ferroce_proto::host::qp::Pmtu;
use ferroce_proto::host::regs::{
    self, caps, cc_qp_rate, cfg_status, id_misc, id_qp_limits, id_ring_limits, irq_status,
};
use ferroce_proto::host::ring::{MAX_LOG2_CQ_ENTRIES, MAX_LOG2_WQE_STRIDE, MAX_LOG2_WQ_ENTRIES};
use ferroce_proto::host::{Version, HOST_INTERFACE_VERSION};

use super::cq::CompletionQueue;
use super::dcqcn::DcqcnParams;
use super::pd::ProtectionDomain;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::regs::Registers;
use crate::util::{lock, IdAllocator};

/// What the NIC reports about itself (`ID_*` registers), decoded and checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceInfo {
    pub version: Version,
    pub build: u32,
    /// `ID_CAPS` bits (`ferroce_proto::host::regs::caps`).
    pub caps: u32,
    pub datapath_bits: u32,
    pub clock_khz: u32,
    pub line_rate_mbps: u32,
    /// Number of QP contexts: valid QPNs are 2 .. num_qps.
    pub num_qps: u32,
    pub num_cqs: u32,
    pub num_mrs: u32,
    pub max_log2_sq_entries: u8,
    pub max_log2_rq_entries: u8,
    pub max_log2_cq_entries: u8,
    pub max_log2_stride: u8,
    pub max_pmtu: Pmtu,
    pub max_rd_atomic: u8,
    pub max_dest_rd_atomic: u8,
    /// SGEs per WQE the NIC accepts.
    pub max_sge: u32,
    pub gid_entries: u32,
    pub vectors: u32,
    pub pd_bits: u32,
}

impl DeviceInfo {
    /// Whether the NIC has all capability bits in `cap`.
    pub fn has(&self, cap: u32) -> bool {
        self.caps & cap == cap
    }

    /// Decode and sanity-check the identity block (after magic and version were checked).
    fn read(r: &Registers) -> Result<DeviceInfo> {
        let ring = r.read(regs::ID_RING_LIMITS);
        let qp = r.read(regs::ID_QP_LIMITS);
        let misc = r.read(regs::ID_MISC);
        let pmtu_raw = id_qp_limits::MAX_PMTU.get(qp) as u8;
        let info = DeviceInfo {
            version: Version::from_reg(r.read(regs::ID_VERSION)),
            build: r.read(regs::ID_BUILD),
            caps: r.read(regs::ID_CAPS),
            datapath_bits: regs::id_datapath::WIDTH_BITS.get(r.read(regs::ID_DATAPATH)),
            clock_khz: r.read(regs::ID_CLOCK_KHZ),
            line_rate_mbps: r.read(regs::ID_LINE_RATE),
            num_qps: r.read(regs::ID_NUM_QPS),
            num_cqs: r.read(regs::ID_NUM_CQS),
            num_mrs: r.read(regs::ID_NUM_MRS),
            max_log2_sq_entries: id_ring_limits::LOG2_SQ_ENTRIES.get(ring) as u8,
            max_log2_rq_entries: id_ring_limits::LOG2_RQ_ENTRIES.get(ring) as u8,
            max_log2_cq_entries: id_ring_limits::LOG2_CQ_ENTRIES.get(ring) as u8,
            max_log2_stride: id_ring_limits::LOG2_STRIDE.get(ring) as u8,
            max_pmtu: Pmtu::from_ibv_enum(pmtu_raw)
                .ok_or(Error::BadDeviceInfo("maximum path MTU (ID_QP_LIMITS)"))?,
            max_rd_atomic: id_qp_limits::MAX_RD_ATOMIC.get(qp) as u8,
            max_dest_rd_atomic: id_qp_limits::MAX_DEST_RD_ATOMIC.get(qp) as u8,
            max_sge: id_qp_limits::MAX_SGE.get(qp),
            gid_entries: id_misc::GID_ENTRIES.get(misc),
            vectors: id_misc::VECTORS.get(misc),
            pd_bits: id_misc::PD_BITS.get(misc),
        };
        // Refuse numbers the layout cannot express: sizing tables from them would go wrong.
        let checks: [(bool, &'static str); 10] = [
            (
                (3..=regs::MAX_QPS).contains(&info.num_qps),
                "QP count (ID_NUM_QPS)",
            ),
            (
                (1..=regs::MAX_CQS).contains(&info.num_cqs),
                "CQ count (ID_NUM_CQS)",
            ),
            (
                (1..=regs::MAX_MRS).contains(&info.num_mrs),
                "MR count (ID_NUM_MRS)",
            ),
            (
                (1..=MAX_LOG2_WQ_ENTRIES).contains(&info.max_log2_sq_entries),
                "SQ size limit (ID_RING_LIMITS)",
            ),
            (
                (1..=MAX_LOG2_WQ_ENTRIES).contains(&info.max_log2_rq_entries),
                "RQ size limit (ID_RING_LIMITS)",
            ),
            (
                (1..=MAX_LOG2_CQ_ENTRIES).contains(&info.max_log2_cq_entries),
                "CQ size limit (ID_RING_LIMITS)",
            ),
            (
                (6..=MAX_LOG2_WQE_STRIDE).contains(&info.max_log2_stride),
                "WQE stride limit (ID_RING_LIMITS)",
            ),
            (info.max_sge >= 1, "SGE limit (ID_QP_LIMITS)"),
            (
                info.gid_entries <= regs::GID_MAX_ENTRIES && info.vectors <= regs::MAX_VECTORS,
                "GID or vector count (ID_MISC)",
            ),
            ((1..=24).contains(&info.pd_bits), "PD width (ID_MISC)"),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, what)) => Err(Error::BadDeviceInfo(what)),
            None => Ok(info),
        }
    }
}

/// How [`Device::open_with`] behaves. Times are backend time ([`Backend::now`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceOptions {
    /// Longest a command window may stay BUSY.
    pub command_timeout: Duration,
    /// Longest `CFG_RESET` may take to report READY.
    pub reset_timeout: Duration,
    /// Longest a QP being destroyed may take to flush its outstanding WQEs.
    pub drain_timeout: Duration,
    /// Reset the NIC on open (clears every context). Leave on unless attaching to a NIC
    /// whose state must survive.
    pub reset: bool,
}

impl Default for DeviceOptions {
    fn default() -> Self {
        DeviceOptions {
            command_timeout: Duration::from_millis(100),
            reset_timeout: Duration::from_secs(1),
            drain_timeout: Duration::from_millis(100),
            reset: true,
        }
    }
}

/// Number allocators and key generations, under one lock.
pub(crate) struct Ids {
    pub(crate) qpn: IdAllocator,
    pub(crate) cqn: IdAllocator,
    pub(crate) mr: IdAllocator,
    pub(crate) pd: IdAllocator,
    /// Last key byte used per MR index, so a re-registered index gets a new key and stale
    /// keys fail the NIC's full-key compare.
    pub(crate) key8: HashMap<u32, u8>,
}

pub(crate) struct DeviceInner {
    pub(crate) regs: Registers,
    pub(crate) info: DeviceInfo,
    pub(crate) options: DeviceOptions,
    pub(crate) ids: Mutex<Ids>,
    /// The driver's copy of every valid MR table entry, by index: post_send and post_recv
    /// check SGEs against it, so misuse fails with a typed error instead of a QP error.
    pub(crate) mrs: Mutex<HashMap<u32, MrEntry>>,
}

impl DeviceInner {
    pub(crate) fn backend(&self) -> &Arc<dyn Backend> {
        self.regs.backend()
    }
}

/// An open ferroce NIC. Cheap to clone (a shared handle); every object created from it keeps
/// it alive.
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

impl Device {
    /// Open the NIC behind `backend` with default options: check identity and version, read
    /// the limits, reset it, and enable the control interrupt causes (HOST-INTERFACE.md 7.1,
    /// steps 1-3 and 5). Configure addresses with [`Device::set_mac`] and
    /// [`Device::set_gid`], then enable the datapath with [`Device::set_control`].
    pub fn open(backend: Arc<dyn Backend>) -> Result<Device> {
        Device::open_with(backend, DeviceOptions::default())
    }

    /// [`Device::open`] with explicit options.
    pub fn open_with(backend: Arc<dyn Backend>, options: DeviceOptions) -> Result<Device> {
        let r = Registers::new(backend, options.command_timeout);
        let magic = r.read(regs::ID_MAGIC);
        if magic != regs::MAGIC {
            return Err(Error::BadMagic(magic));
        }
        let version = Version::from_reg(r.read(regs::ID_VERSION));
        if !HOST_INTERFACE_VERSION.driver_accepts(version) {
            return Err(Error::IncompatibleVersion {
                device: version,
                driver: HOST_INTERFACE_VERSION,
            });
        }
        let info = DeviceInfo::read(&r)?;
        if !info.has(caps::IPV4) && !info.has(caps::IPV6) && !info.has(caps::ROCEV1) {
            return Err(Error::BadDeviceInfo(
                "capability set: neither IPv4, IPv6 nor RoCEv1 (ID_CAPS)",
            ));
        }
        if options.reset {
            r.write(regs::CFG_RESET, 1);
            r.wait_until("CFG_STATUS.READY after reset", options.reset_timeout, |r| {
                r.read(regs::CFG_STATUS) & cfg_status::READY != 0
            })?;
        }
        // Control causes (async events, fatal errors) on vector 0. CMD_DONE stays off: the
        // driver polls command windows.
        r.write(regs::IRQ_CTRL_VECTOR, 0);
        r.write(regs::IRQ_ENABLE, irq_status::ASYNC | irq_status::FATAL);
        let ids = Ids {
            // QPN 0 and 1 are reserved (IBA SMI/GSI).
            qpn: IdAllocator::new(2, info.num_qps),
            cqn: IdAllocator::new(0, info.num_cqs),
            mr: IdAllocator::new(0, info.num_mrs),
            // PD 0 is left unused so that a zeroed context never matches a real PD.
            pd: IdAllocator::new(1, 1 << info.pd_bits),
            key8: HashMap::new(),
        };
        Ok(Device {
            inner: Arc::new(DeviceInner {
                regs: r,
                info,
                options,
                ids: Mutex::new(ids),
                mrs: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// Identity and limits.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// Raw register access, for diagnostics (register dumps, tests). Objects' registers are
    /// programmed by the verbs types; writing them here bypasses the driver's bookkeeping.
    pub fn registers(&self) -> &Registers {
        &self.inner.regs
    }

    /// Allocate a protection domain.
    pub fn alloc_pd(&self) -> Result<ProtectionDomain> {
        ProtectionDomain::new(self.inner.clone())
    }

    /// Create a completion queue with room for at least `min_entries` CQEs (rounded up to a
    /// power of two), raising interrupt `vector` on events.
    pub fn create_cq(&self, min_entries: u32, vector: u8) -> Result<CompletionQueue> {
        CompletionQueue::new(self.inner.clone(), min_entries, vector)
    }

    /// Set the local MAC address (`CFG_MAC_LO`, then `CFG_MAC_HI` which applies it).
    pub fn set_mac(&self, mac: [u8; 6]) {
        self.inner.regs.apply(&config::mac_writes(mac));
    }

    /// Install GID table entry `index` (invalidate, data words, then type).
    pub fn set_gid(&self, index: u32, entry: &GidEntry) -> Result<()> {
        if index >= self.inner.info.gid_entries {
            return Err(Error::ExceedsDeviceLimit {
                attr: "GID index",
                value: index as u64,
                max: self.inner.info.gid_entries.saturating_sub(1) as u64,
            });
        }
        let writes = entry.writes(index).map_err(Error::Layout)?;
        self.inner.regs.apply(&writes);
        Ok(())
    }

    /// Write `CFG_CONTROL` (`ferroce_proto::host::regs::cfg_control` bits: RX/TX enable and
    /// features). A feature bit whose `ID_CAPS` bit is clear is refused with
    /// [`Error::MissingCapability`] naming the feature.
    pub fn set_control(&self, control: u32) -> Result<()> {
        use regs::cfg_control as c;
        let needs = [
            (c::ROCEV1_ENABLE, caps::ROCEV1, "RoCEv1"),
            (c::IPV6_ENABLE, caps::IPV6, "IPv6"),
            (c::DCQCN_RP_ENABLE, caps::DCQCN_RP, "DCQCN reaction point"),
            (
                c::DCQCN_NP_ENABLE,
                caps::DCQCN_NP,
                "DCQCN notification point",
            ),
            (c::PFC_ENABLE, caps::PFC, "PFC"),
        ];
        for (bit, cap, name) in needs {
            if control & bit != 0 && !self.inner.info.has(cap) {
                return Err(Error::MissingCapability { feature: name, cap });
            }
        }
        self.inner.regs.write(regs::CFG_CONTROL, control);
        Ok(())
    }

    /// Set the UDP source-port policy (`CFG_UDP_SPORT`).
    pub fn set_udp_sport(&self, policy: &UdpSportPolicy) -> Result<()> {
        let v = policy.encode().map_err(Error::Layout)?;
        self.inner.regs.write(regs::CFG_UDP_SPORT, v);
        Ok(())
    }

    /// Set DSCP/ECN marking (`CFG_TRAFFIC`).
    pub fn set_traffic(&self, traffic: &TrafficConfig) -> Result<()> {
        let v = traffic.encode().map_err(Error::Layout)?;
        self.inner.regs.write(regs::CFG_TRAFFIC, v);
        Ok(())
    }

    /// Set the PFC priority classes (`CFG_PFC`).
    pub fn set_pfc(&self, pfc: &PfcConfig) -> Result<()> {
        let v = pfc.encode().map_err(Error::Layout)?;
        self.inner.regs.write(regs::CFG_PFC, v);
        Ok(())
    }

    /// Set when the NIC sends PFC XOFF and XON (`CFG_PFC_XOFF`, `CFG_PFC_QUANTA`; they act
    /// with `CFG_CONTROL.PFC_ENABLE`). Every field is checked before anything is written; a
    /// bad one is [`Error::Layout`] naming it.
    pub fn set_pfc_xoff(&self, c: &PfcXoffConfig) -> Result<()> {
        let (xoff, quanta) = c.encode().map_err(Error::Layout)?;
        self.inner.regs.write(regs::CFG_PFC_XOFF, xoff);
        self.inner.regs.write(regs::CFG_PFC_QUANTA, quanta);
        Ok(())
    }

    /// The PFC transmit thresholds and pause time in force.
    pub fn pfc_xoff(&self) -> PfcXoffConfig {
        let r = &self.inner.regs;
        PfcXoffConfig::decode(r.read(regs::CFG_PFC_XOFF), r.read(regs::CFG_PFC_QUANTA))
    }

    /// Set the responder's ACK interval (`CFG_ACK_COALESCE`): besides every AckReq packet and
    /// message end, at least one ACK every `every` executed packets of a QP; 1 = every packet,
    /// 0 = no count. The reset value is 64.
    pub fn set_ack_coalesce(&self, every: u8) {
        self.inner.regs.write(
            regs::CFG_ACK_COALESCE,
            regs::cfg_ack_coalesce::EVERY.place(every as u32),
        );
    }

    /// Set the requester's turn between QPs (`CFG_SQ_QUANTUM`): a send job sends at most
    /// `packets` packets of its message while other QPs wait in the work ring, then its QP goes
    /// to the ring's tail and the message goes on at its next turn; 0 = a whole message per
    /// turn. The reset value is 16 (docs/HOST-INTERFACE.md).
    pub fn set_send_quantum(&self, packets: u8) {
        self.inner.regs.write(
            regs::CFG_SQ_QUANTUM,
            regs::cfg_sq_quantum::PACKETS.place(packets as u32),
        );
    }

    /// Limit QP `qpn`'s send rate to `mbps` Mb/s of RoCE payload (what
    /// `ibv_modify_qp_rate_limit` sets); 0 removes the limit (line rate). The NIC's rate shaper
    /// (`CC_QP_SELECT`, `CC_QP_RATE_LIMIT`, docs/CONGESTION.md) holds 16 limited QPs; a 17th
    /// stays unlimited. `qpn` must be one of the device's QPNs (2 .. num_qps) and `mbps` at
    /// most the line rate (`ID_LINE_RATE`).
    pub fn set_qp_rate_limit(&self, qpn: u32, mbps: u32) -> Result<()> {
        let info = &self.inner.info;
        if qpn < 2 || qpn >= info.num_qps {
            return Err(Error::InvalidArgument(
                "set_qp_rate_limit: qpn is not one of the device's QPNs (2 .. ID_NUM_QPS - 1)",
            ));
        }
        if mbps > info.line_rate_mbps || mbps >= 1 << 20 {
            return Err(Error::InvalidArgument(
                "set_qp_rate_limit: mbps is above the line rate (ID_LINE_RATE)",
            ));
        }
        self.inner.regs.write(regs::CC_QP_SELECT, qpn);
        self.inner.regs.write(regs::CC_QP_RATE_LIMIT, mbps);
        Ok(())
    }

    /// Enable or disable the DCQCN reaction point for QP `qpn` (`CC_QP_SELECT`, `CC_QP_DCQCN`).
    /// With `CFG_CONTROL.DCQCN_RP_ENABLE` set (see [`Device::set_control`]), a CNP for an
    /// enabled QP gives it one of the NIC's 16 rate limiters; disabling a QP releases its
    /// limiter. Refused with [`Error::MissingCapability`] if the NIC has no reaction point.
    pub fn set_qp_dcqcn(&self, qpn: u32, enable: bool) -> Result<()> {
        let info = &self.inner.info;
        if !info.has(caps::DCQCN_RP) {
            return Err(Error::MissingCapability {
                feature: "DCQCN reaction point",
                cap: caps::DCQCN_RP,
            });
        }
        if qpn < 2 || qpn >= info.num_qps {
            return Err(Error::InvalidArgument(
                "set_qp_dcqcn: qpn is not one of the device's QPNs (2 .. ID_NUM_QPS - 1)",
            ));
        }
        self.inner.regs.write(regs::CC_QP_SELECT, qpn);
        self.inner.regs.write(regs::CC_QP_DCQCN, enable as u32);
        Ok(())
    }

    /// The rate QP `qpn` may send at now (`CC_QP_SELECT`, `CC_QP_RATE`): the rate shaper's
    /// limit, which is the DCQCN reaction point's current rate Rc or the static limit
    /// ([`Device::set_qp_rate_limit`]), whichever is lower; [`QpRate::Unlimited`] when the QP
    /// holds no limit (line rate). Read live from the shaper: a rate the reaction point
    /// changes reaches it within a sweep of the rate feeder (about 1 us, docs/CONGESTION.md).
    pub fn qp_rate(&self, qpn: u32) -> Result<QpRate> {
        let info = &self.inner.info;
        if qpn < 2 || qpn >= info.num_qps {
            return Err(Error::InvalidArgument(
                "qp_rate: qpn is not one of the device's QPNs (2 .. ID_NUM_QPS - 1)",
            ));
        }
        let r = &self.inner.regs;
        r.write(regs::CC_QP_SELECT, qpn);
        // the word names its QPN: the select reaches the shaper a few cycles after the write
        let mut word = 0;
        r.wait_until(
            "CC_QP_RATE to follow CC_QP_SELECT",
            self.inner.options.command_timeout,
            |r| {
                word = r.read(regs::CC_QP_RATE);
                cc_qp_rate::QPN.get(word) == qpn
            },
        )?;
        Ok(if cc_qp_rate::LIMITED.get(word) != 0 {
            QpRate::Limited {
                mbps: cc_qp_rate::MBPS.get(word),
            }
        } else {
            QpRate::Unlimited
        })
    }

    /// Set the DCQCN parameters (mlx5 names, [`DcqcnParams`]); every value is checked first and
    /// nothing is written if one is out of range ([`Error::InvalidArgument`] names it).
    pub fn set_dcqcn_params(&self, p: &DcqcnParams) -> Result<()> {
        let writes = p.writes(self.inner.info.line_rate_mbps)?;
        let r = &self.inner.regs;
        let (traffic, pfc) = p.cnp_fields(r.read(regs::CFG_TRAFFIC), r.read(regs::CFG_PFC));
        for (reg, v) in writes {
            r.write(reg, v);
        }
        r.write(regs::CFG_TRAFFIC, traffic);
        r.write(regs::CFG_PFC, pfc);
        Ok(())
    }

    /// `CFG_STATUS` (`cfg_status` bits: READY, LINK_UP, FATAL).
    pub fn status(&self) -> u32 {
        self.inner.regs.read(regs::CFG_STATUS)
    }

    /// Take the next asynchronous event, if any (read the FIFO head, then pop it).
    pub fn next_async_event(&self) -> Result<Option<AsyncEvent>> {
        let r = &self.inner.regs;
        let event = r.read(regs::ASYNC_EVENT);
        let info = r.read(regs::ASYNC_EVENT_INFO);
        let decoded = AsyncEvent::decode(event, info).map_err(Error::Layout);
        if regs::async_event::VALID.bit(event) {
            // Pop even an undecodable event, or it would block the FIFO forever.
            r.write(regs::ASYNC_EVENT_POP, 1);
        }
        decoded
    }

    /// Wait for the control interrupt vector (async events, fatal errors).
    pub fn wait_control_event(&self, timeout: Duration) -> Result<bool> {
        self.inner.backend().wait_interrupt(0, timeout)
    }

    /// Read one 64-bit counter by its `CNT_*_LO` offset (LO first: a consistent snapshot).
    pub fn counter(&self, lo_offset: u32) -> u64 {
        self.inner.regs.read64(lo_offset)
    }

    /// The per-priority PFC counters (`CNT_PFC_{RX_XOFF,RX_XON,PAUSED_CYCLES,TX_XOFF,TX_XON}_P0`
    /// ..`_P7`), each a consistent LO/HI snapshot (the eight of a kind are not read at one
    /// instant).
    pub fn pfc_priority_counters(&self) -> PfcPriorityCounters {
        let read = |p0: u32| -> [u64; 8] {
            core::array::from_fn(|p| {
                self.inner
                    .regs
                    .read64(p0 + regs::PFC_PRIO_COUNTER_STRIDE * p as u32)
            })
        };
        PfcPriorityCounters {
            rx_xoff: read(regs::CNT_PFC_RX_XOFF_P0_LO),
            rx_xon: read(regs::CNT_PFC_RX_XON_P0_LO),
            paused_cycles: read(regs::CNT_PFC_PAUSED_CYCLES_P0_LO),
            tx_xoff: read(regs::CNT_PFC_TX_XOFF_P0_LO),
            tx_xon: read(regs::CNT_PFC_TX_XON_P0_LO),
        }
    }

    /// Every counter as (name, value), in address order.
    pub fn counters(&self) -> Vec<(&'static str, u64)> {
        regs::counters()
            .map(|(name, off)| (name, self.inner.regs.read64(off)))
            .collect()
    }

    /// Allocate DMA memory from this device's backend (zeroed, IOVA aligned to `align`).
    pub fn alloc_dma(&self, len: usize, align: usize) -> Result<crate::DmaBuffer> {
        self.inner.backend().alloc_dma(len, align)
    }
}

/// What [`Device::qp_rate`] reads: the rate a QP's packets may leave at now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QpRate {
    /// No limit: the QP sends at line rate.
    Unlimited,
    /// The rate shaper holds the QP at `mbps` Mb/s of RoCE payload.
    Limited { mbps: u32 },
}

impl QpRate {
    /// The rate in Mb/s, `line_mbps` when unlimited.
    pub fn mbps_or(self, line_mbps: u32) -> u32 {
        match self {
            QpRate::Unlimited => line_mbps,
            QpRate::Limited { mbps } => mbps,
        }
    }
}

/// PFC (IEEE 802.1Qbb) statistics per priority; index n = priority n (VLAN PCP).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PfcPriorityCounters {
    /// PFC frames received naming the priority with a nonzero pause time (XOFF).
    pub rx_xoff: [u64; 8],
    /// PFC frames received naming the priority with pause time 0 (XON).
    pub rx_xon: [u64; 8],
    /// Core clock cycles the priority was paused (received frames or the MAC's pause input).
    pub paused_cycles: [u64; 8],
    /// PFC XOFF frames the NIC sent on the priority (only ever its RoCE priority).
    pub tx_xoff: [u64; 8],
    /// PFC XON frames the NIC sent on the priority.
    pub tx_xon: [u64; 8],
}

impl core::fmt::Debug for Device {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Device")
            .field("info", &self.inner.info)
            .finish_non_exhaustive()
    }
}

pub(crate) fn lock_ids(dev: &DeviceInner) -> std::sync::MutexGuard<'_, Ids> {
    lock(&dev.ids)
}
