//! BAR0 register map.
//!
//! All registers are 32 bits, little-endian, naturally aligned, and reached through an
//! AXI4-Lite slave (`s_axil_*`): the hardware never has to handle 8/16/64-bit or unaligned
//! accesses. Reads of reserved or unimplemented offsets return 0; writes to them are ignored.
//!
//! # 64-bit values
//! A 64-bit quantity is a LO/HI pair at `off` / `off + 4`.
//! * **Write LO first, then HI.** For live registers (e.g. [`CFG_MAC_LO`]/[`CFG_MAC_HI`]) the HI
//!   write is what applies the whole value, so the hardware never uses a half-updated value.
//!   For staging registers of the command windows the order is irrelevant (the command applies
//!   them) but the same rule keeps one pattern in the driver.
//! * **Read LO first, then HI.** For counters the LO read latches the HI half into a shadow
//!   register, so the pair is a consistent snapshot even while the counter moves.
//!
//! # Layout (2 MiB BAR0)
//! ```text
//! 0x00_0000  control page: identity, global config, congestion control, interrupts,
//!            GID table, QP / MR / CQ command windows            (privileged: driver only)
//! 0x00_1000  counters (64-bit LO/HI pairs)                        (privileged, read-only)
//! 0x00_2000  reserved (reads 0)
//! 0x10_0000  QP doorbells: 8 bytes per QP (SQ PI, RQ PI), 64 Ki QPs = 512 KiB
//! 0x18_0000  CQ doorbells: 8 bytes per CQ (CI update, CI + arm), 64 Ki CQs = 512 KiB
//! 0x20_0000  end
//! ```
//! The doorbell regions start on a 1 MiB boundary so any system page size up to 512 KiB
//! keeps them apart from the privileged registers; a 4 KiB doorbell page serves 512 QPs
//! (or 512 CQs), which is the granule the driver hands to a user process.

use super::{RegWrite, HOST_INTERFACE_VERSION};

/// Size of BAR0 in bytes (power of two, as PCIe requires).
pub const BAR0_SIZE: u32 = 0x20_0000;

/// Value of [`ID_MAGIC`]: the ASCII bytes "FRCE" read as a little-endian u32, so a byte dump of
/// BAR0 starts with `46 52 43 45`.
pub const MAGIC: u32 = u32::from_le_bytes(*b"FRCE");

/// Value of [`ID_VERSION`] for this layout.
pub const VERSION_REG: u32 = HOST_INTERFACE_VERSION.to_reg();

/// How software may access a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read-only: writes are ignored.
    RO,
    /// Read-write: reads return the last value written (or the reset value).
    RW,
    /// Write-only: the write is an action; reads return 0.
    WO,
    /// Write-one-to-clear: reads return status bits; writing 1 to a bit clears it.
    W1C,
}

impl Access {
    pub const fn as_str(self) -> &'static str {
        match self {
            Access::RO => "RO",
            Access::RW => "RW",
            Access::WO => "WO",
            Access::W1C => "W1C",
        }
    }

    pub fn parse(s: &str) -> Option<Access> {
        Some(match s {
            "RO" => Access::RO,
            "RW" => Access::RW,
            "WO" => Access::WO,
            "W1C" => Access::W1C,
            _ => return None,
        })
    }
}

/// One row of the register map. Arrays (per-GID, per-QP, per-CQ registers) are one row with
/// `count > 1` elements `stride` bytes apart; element `n` is at `offset + n * stride`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegisterInfo {
    pub name: &'static str,
    pub offset: u32,
    pub access: Access,
    /// Number of elements (1 for a plain register).
    pub count: u32,
    /// Distance between elements in bytes (0 for a plain register).
    pub stride: u32,
    /// Value after reset for RW registers (0 unless stated). Identity registers report
    /// build-time values instead.
    pub reset: u32,
    pub description: &'static str,
}

impl RegisterInfo {
    /// Offset of element `n` (panics in debug builds if out of range).
    pub const fn at(&self, n: u32) -> u32 {
        debug_assert!(n < self.count);
        self.offset + n * self.stride
    }

    /// Offset one past the last byte of the last element.
    pub const fn end(&self) -> u32 {
        self.offset + (self.count - 1) * self.stride + 4
    }

    /// The name as the register table in HOST-INTERFACE.md prints it: arrays get `[n]`.
    pub fn doc_name(&self) -> String {
        if self.count > 1 {
            format!("{}[n]", self.name)
        } else {
            self.name.to_string()
        }
    }

    /// If `offset` addresses this register, the element index.
    pub const fn element(&self, offset: u32) -> Option<u32> {
        if offset < self.offset || offset >= self.end() {
            return None;
        }
        let d = offset - self.offset;
        if self.count == 1 {
            return if d == 0 { Some(0) } else { None };
        }
        if d.is_multiple_of(self.stride) {
            Some(d / self.stride)
        } else {
            None
        }
    }
}

/// Look a register up by name.
pub fn find(name: &str) -> Option<&'static RegisterInfo> {
    REGISTERS.iter().find(|r| r.name == name)
}

/// Decode a BAR0 offset into (register, element index). Used by the hardware model's address
/// decoder and by trace printers.
pub fn decode(offset: u32) -> Option<(&'static RegisterInfo, u32)> {
    REGISTERS
        .iter()
        .find_map(|r| r.element(offset).map(|n| (r, n)))
}

// One definition per register: the macro emits the `pub const` offset (documented with the
// description) and the matching `REGISTERS` row, so the two cannot drift apart.
macro_rules! register_map {
    ($( $name:ident $([$count:expr; $stride:expr])? = $off:expr, $acc:ident $(= $reset:expr)?, $desc:literal; )*) => {
        $(
            #[doc = $desc]
            pub const $name: u32 = $off;
        )*
        /// Every register of BAR0, in address order. HOST-INTERFACE.md carries the same table.
        pub static REGISTERS: &[RegisterInfo] = &[
            $(
                RegisterInfo {
                    name: stringify!($name),
                    offset: $off,
                    access: Access::$acc,
                    count: 1 $( - 1 + $count )?,
                    stride: 0 $( + $stride )?,
                    reset: 0 $( + $reset )?,
                    description: $desc,
                },
            )*
        ];
    };
}

/// Base of the identity block.
pub const ID_BASE: u32 = 0x000;
/// Base of the global configuration block.
pub const CFG_BASE: u32 = 0x100;
/// Base of the congestion-control (DCQCN) parameter block.
pub const CC_BASE: u32 = 0x200;
/// Base of the interrupt and async-event block.
pub const IRQ_BASE: u32 = 0x300;
/// Base of the GID table (16 entries of 32 bytes).
pub const GID_BASE: u32 = 0x400;
/// Distance between GID table entries.
pub const GID_STRIDE: u32 = 0x20;
/// Architectural maximum of GID table entries; [`id_misc::GID_ENTRIES`] reports how many exist.
pub const GID_MAX_ENTRIES: u32 = 16;
/// Base of the QP command window.
pub const QP_WIN_BASE: u32 = 0x800;
/// Base of the MR command window.
pub const MR_WIN_BASE: u32 = 0x900;
/// Base of the CQ command window.
pub const CQ_WIN_BASE: u32 = 0xA00;
/// Base of the counter block.
pub const CNT_BASE: u32 = 0x1000;
/// Base of the QP doorbell region.
pub const DB_QP_BASE: u32 = 0x10_0000;
/// Bytes of doorbell per QP: SQ producer index at +0, RQ producer index at +4.
pub const DB_QP_STRIDE: u32 = 8;
/// Base of the CQ doorbell region.
pub const DB_CQ_BASE: u32 = 0x18_0000;
/// Bytes of doorbell per CQ: CI update at +0, CI + arm at +4.
pub const DB_CQ_STRIDE: u32 = 8;
/// Architectural maximum number of QPs (QPN 0 ..= 0xFFFF); [`ID_NUM_QPS`] reports how many a
/// build implements. QPN 0 and 1 are reserved (IBA: SMI and GSI) and never used for RC.
pub const MAX_QPS: u32 = 1 << 16;
/// Architectural maximum number of CQs; [`ID_NUM_CQS`] reports how many a build implements.
pub const MAX_CQS: u32 = 1 << 16;
/// Architectural maximum number of MR table entries (the key index is 24 bits).
pub const MAX_MRS: u32 = 1 << 24;
/// Number of interrupt vectors the pending/mask bitmaps can describe.
pub const MAX_VECTORS: u32 = 32;

register_map! {
    // ---- identity (0x000): read-only, build-time constants ----
    ID_MAGIC = 0x000, RO = MAGIC, "Magic number 0x45435246: the bytes F R C E.";
    ID_VERSION = 0x004, RO = VERSION_REG, "Host interface version: major in 31:16, minor in 15:0.";
    ID_BUILD = 0x008, RO, "Build identifier of the bitstream (source revision), informational.";
    ID_CAPS = 0x00C, RO, "Capability bits (see caps): IPv4, IPv6, RoCEv1, DCQCN RP/NP, PFC, atomics, READ, SEND_INV, LOCAL_INV, inline, VLAN.";
    ID_DATAPATH = 0x010, RO, "15:0 datapath width in bits (64 lite, 512 full).";
    ID_CLOCK_KHZ = 0x014, RO, "Core clock frequency in kHz.";
    ID_LINE_RATE = 0x018, RO, "MAC line rate in Mb/s (the DCQCN rate ceiling).";
    ID_NUM_QPS = 0x01C, RO, "Number of QP contexts: valid QPNs are 2 .. n-1.";
    ID_NUM_CQS = 0x020, RO, "Number of CQ contexts: valid CQNs are 0 .. n-1.";
    ID_NUM_MRS = 0x024, RO, "Number of MR table entries: valid key indexes are 0 .. n-1.";
    ID_RING_LIMITS = 0x028, RO, "4:0 max log2 SQ entries; 12:8 max log2 RQ entries; 20:16 max log2 CQ entries; 27:24 max log2 WQE stride.";
    ID_QP_LIMITS = 0x02C, RO, "3:0 max path MTU code; 15:8 max_rd_atomic; 23:16 max_dest_rd_atomic; 31:24 max SGEs per WQE.";
    ID_MISC = 0x030, RO, "7:0 GID table entries; 15:8 interrupt vectors; 23:16 PD width in bits.";

    // ---- global configuration (0x100) ----
    CFG_CONTROL = 0x100, RW, "Enables (see cfg_control): RX, TX, RoCEv1, IPv6, DCQCN RP, DCQCN NP, PFC. All 0 after reset.";
    CFG_STATUS = 0x104, RO, "0 READY (reset done, contexts cleared); 1 LINK_UP; 2 FATAL (see ASYNC_EVENT).";
    CFG_RESET = 0x108, WO, "Write 1 to bit 0: reset datapath and clear every QP, MR, CQ context; READY drops until done.";
    CFG_SCRATCH = 0x10C, RW, "Scratch register for bus tests; no effect.";
    CFG_MAC_LO = 0x110, RW, "Local MAC bytes 0..3 (byte 0, first on the wire, in 7:0).";
    CFG_MAC_HI = 0x114, RW, "Local MAC bytes 4..5 in 15:0; writing it applies the whole MAC.";
    CFG_UDP_SPORT = 0x118, RW = 0x000E_C000, "UDP source port policy: 15:0 base (0xC000); 19:16 entropy bits (14); 24 FIXED (1 = always base).";
    CFG_TRAFFIC = 0x11C, RW = 0x0002_B09A, "5:0 default DSCP (26); 7:6 ECN codepoint of data packets and READ responses (2 = ECT(0)); 13:8 CNP DSCP (48); 15:14 ECN codepoint of ACKs, NAKs and atomic ACKs (2); 17:16 ECN codepoint of CNPs (2, as ConnectX-4 Lx sends them); 18 VLAN_TAG: every RoCE frame the NIC sends (requests, READ responses, ACKs, CNPs) carries an IEEE 802.1Q tag with VID 31:20, DEI 0 and PCP CFG_PFC.DATA_PRIO (CNPs: CFG_PFC.CNP_PRIO); 0 (reset): untagged. PFC frames stay untagged (IEEE 802.1Qbb). Received frames are taken tagged or untagged, whatever their VID.";
    CFG_PFC = 0x120, RW = 0x0064_0063, "2:0 priority of RoCE data and ACKs (3); 6:4 priority of CNPs (6); 31:16 link bit times per core clock cycle, floor(line rate / clock) (100: 25 Gb/s at 250 MHz), the pace of PFC pause quanta (512 bit times). With CFG_CONTROL.PFC_ENABLE a received PFC pause of a class (or the MAC's pause input) stops the NIC starting frames of it.";
    CFG_ACK_COALESCE = 0x124, RW = 0x0000_0040, "7:0 N: the responder acknowledges at least every N executed request packets of a QP, besides every AckReq packet, message end, NAK and duplicate (64); 1 = every packet; 0 = only those.";
    CFG_PFC_XOFF = 0x128, RW = 0x0200_0400, "15:0 XOFF threshold, 31:16 XON threshold, in 8-byte words held by the receive FIFO in front of the parser (4096 words): with CFG_CONTROL.PFC_ENABLE the NIC sends a PFC XOFF on its RoCE priority (CFG_PFC 2:0) when the FIFO holds at least XOFF words, refreshes it at half its pause time while the FIFO stays at or above XON, and sends an XON (pause time 0) once it holds fewer than XON words (defaults 1024 and 512; docs/CONGESTION.md gives the headroom).";
    CFG_PFC_QUANTA = 0x12C, RW = 0x0000_FFFF, "15:0 pause time of the XOFFs the NIC sends, in quanta of 512 bit times (65535); 0 is not useful (an XOFF of 0 quanta is an XON).";
    CFG_SQ_QUANTUM = 0x130, RW = 0x0000_0010, "7:0 packets a send job sends in one turn of the work ring while other QPs wait in it (16 after reset): then it sets itself aside, its QP to the ring's tail, and its message goes on from that packet at the QP's next turn; 0 = a whole message per turn.";

    // ---- congestion control parameters (0x200), mlx5 names and defaults ----
    CC_RP_TIME_RESET = 0x200, RW = 300, "DCQCN RP rate-increase timer period in us (rpg_time_reset, 300).";
    CC_RP_BYTE_RESET = 0x204, RW = 32767, "DCQCN RP bytes sent per rate-increase event, in 64-byte units, 0..32767; 0 = byte counter off (rpg_byte_reset, 32767).";
    CC_RP_THRESHOLD = 0x208, RW = 1, "DCQCN RP increase events before leaving fast recovery (rpg_threshold, F, 1).";
    CC_RP_AI_RATE = 0x20C, RW = 5, "DCQCN RP additive increase in Mb/s (rpg_ai_rate, 5).";
    CC_RP_HAI_RATE = 0x210, RW = 50, "DCQCN RP hyper increase in Mb/s (rpg_hai_rate, 50).";
    CC_RP_MIN_RATE = 0x214, RW = 1, "DCQCN RP minimum rate in Mb/s (rpg_min_rate, 1).";
    CC_RP_MAX_RATE = 0x218, RW, "DCQCN RP maximum rate in Mb/s; 0 = line rate (rpg_max_rate, 0).";
    CC_RP_GD = 0x21C, RW = 11, "DCQCN RP decrease shift: Rc -= Rc * alpha / 2^gd, alpha in 0..1023 (rpg_gd, 11).";
    CC_RP_MIN_DEC_FAC = 0x220, RW = 50, "DCQCN RP largest single decrease: new rate >= this percent of old (rpg_min_dec_fac, 50).";
    CC_RP_ALPHA_G = 0x224, RW = 1019, "DCQCN alpha gain: alpha = alpha * g / 1024 (+ (1024 - g) / 1024 on CNP) (dce_tcp_g, 1019).";
    CC_RP_ALPHA_PERIOD = 0x228, RW = 1, "DCQCN alpha update period in us (dce_tcp_rtt, 1).";
    CC_RP_REDUCE_PERIOD = 0x22C, RW = 4, "DCQCN at most one rate decrease per period in us (rate_reduce_monitor_period, 4).";
    CC_RP_INITIAL_ALPHA = 0x230, RW = 1023, "DCQCN alpha on the first CNP, 0..1023 (initial_alpha_value, 1023).";
    CC_RP_FLAGS = 0x234, RW = 2, "0 clamp_tgt_rate; 1 clamp_tgt_rate_after_time_inc (default 2 = bit 1 set).";
    CC_RP_FIRST_CNP_RATE = 0x238, RW, "DCQCN Rc and Rt in Mb/s set on the first CNP, at most the cap; 0 = the cap: line rate, or CC_RP_MAX_RATE if lower (rate_to_set_on_first_cnp, 0).";
    CC_NP_CNP_INTERVAL = 0x23C, RW = 4, "DCQCN NP minimum time between CNPs per QP in us, 32 bits; 0 = a CNP for every CE-marked packet (min_time_between_cnps, 4).";
    CC_QP_SELECT = 0x240, RW, "7:0 the QPN that a write of CC_QP_RATE_LIMIT or CC_QP_DCQCN applies to, and whose rate CC_QP_RATE reads.";
    CC_QP_RATE_LIMIT = 0x244, RW, "19:0 static rate limit in Mb/s of the QP in CC_QP_SELECT, applied by the write (ibv_modify_qp_rate_limit); 0 = none (line rate). Counts RoCE payload bytes; reads the last value written.";
    CC_QP_DCQCN = 0x248, RW, "0 DCQCN reaction point enabled for the QP in CC_QP_SELECT, applied by the write (0 at power-up; CFG_RESET does not clear it); with CFG_CONTROL.DCQCN_RP_ENABLE a CNP for an enabled QP gives it a rate limiter. Reads the last value written.";
    CC_QP_RATE = 0x24C, RO, "The rate the shaper holds now for the QP in CC_QP_SELECT, read live: 19:0 Mb/s of RoCE payload (the DCQCN reaction point's Rc or the static limit, whichever is lower, as the rate feeder last wrote it); 29:20 the QPN this word is for (the select takes a few cycles to reach the shaper: a reader compares it with its QPN); 30 LIMITED: the QP holds a shaper slot (clear: no limit, line rate, and 19:0 reads 0).";

    // ---- interrupts and asynchronous events (0x300) ----
    IRQ_STATUS = 0x300, W1C, "Control-interrupt causes: 0 ASYNC (event queued); 1 FATAL; 2 CMD_DONE (a command window finished).";
    IRQ_ENABLE = 0x304, RW, "Enable mask for IRQ_STATUS bits; an enabled cause raises vector IRQ_CTRL_VECTOR.";
    IRQ_VEC_PENDING = 0x308, W1C, "Bit v: vector v fired (a CQ event or a control cause); for INTx or polled drivers.";
    IRQ_VEC_MASK = 0x30C, RW, "Bit v = 1 masks vector v: events still set IRQ_VEC_PENDING but send no message.";
    IRQ_CTRL_VECTOR = 0x310, RW, "7:0 vector that carries IRQ_STATUS causes (default 0).";
    ASYNC_EVENT = 0x320, RO, "Head of the async event FIFO: 23:0 QPN or CQN; 28:24 event type (ibv_event_type); 31 VALID.";
    ASYNC_EVENT_INFO = 0x324, RO, "Head event details: 7:0 vendor error; 15:8 completion status that caused it.";
    ASYNC_EVENT_POP = 0x328, WO, "Any write removes the head event (reads never have side effects).";
    ASYNC_EVENT_LOST = 0x32C, RO, "Events dropped because the FIFO was full (saturating count).";

    // ---- GID table (0x400): 16 entries x 32 bytes ----
    GID_DATA0[16; GID_STRIDE] = 0x400, RW, "GID bytes 0..3 of entry n (byte 0 in 7:0).";
    GID_DATA1[16; GID_STRIDE] = 0x404, RW, "GID bytes 4..7 of entry n.";
    GID_DATA2[16; GID_STRIDE] = 0x408, RW, "GID bytes 8..11 of entry n.";
    GID_DATA3[16; GID_STRIDE] = 0x40C, RW, "GID bytes 12..15 of entry n (the IPv4 address for IPv4-mapped GIDs).";
    GID_ATTR[16; GID_STRIDE] = 0x410, RW, "1:0 type of entry n: 0 invalid, 1 RoCEv2 IPv4, 2 RoCEv2 IPv6, 3 RoCEv1. Set 0 before rewriting the data words.";

    // ---- QP command window (0x800) ----
    QP_CMD_QPN = 0x800, RW, "QPN the next command acts on (15:0).";
    QP_CMD = 0x804, WO, "Command: 1 MODIFY (apply staged attributes in QP_ATTR_MASK), 2 QUERY (load the context into the staging registers).";
    QP_CMD_STATUS = 0x808, RO, "0 BUSY; 15:8 result of the last command (0 OK, see CmdResult).";
    QP_ATTR_MASK = 0x80C, RW, "Attributes MODIFY applies: ibv_qp_attr_mask bit values, plus bit 31 CREATE (PD, rings, CQs).";
    QP_STATE = 0x810, RW, "2:0 state (target on MODIFY, current on QUERY); 6:4 expected current state (CUR_STATE); 8 SQD async notify; 9 SQ drained (query).";
    QP_ACCESS = 0x814, RW, "qp_access_flags: 1 LOCAL_WRITE, 2 REMOTE_WRITE, 4 REMOTE_READ, 8 REMOTE_ATOMIC.";
    QP_PD = 0x818, RW, "Protection domain (23:0), compared with the MR PD on every access. CREATE group.";
    QP_DEST_QPN = 0x81C, RW, "Remote QPN (23:0).";
    QP_MTU_RD = 0x820, RW, "2:0 path MTU code (1=256 .. 5=4096); 15:8 max_rd_atomic; 23:16 max_dest_rd_atomic.";
    QP_TIMERS = 0x824, RW, "4:0 timeout (4.096 us x 2^t, 0 = infinite); 10:8 retry_cnt; 14:12 rnr_retry (7 = infinite); 20:16 min_rnr_timer.";
    QP_SQ_PSN = 0x828, RW, "Initial send PSN (23:0).";
    QP_RQ_PSN = 0x82C, RW, "Initial expected receive PSN (23:0).";
    QP_AV_DMAC_LO = 0x830, RW, "Destination MAC bytes 0..3 (next hop, resolved by the driver).";
    QP_AV_DMAC_HI = 0x834, RW, "Destination MAC bytes 4..5 in 15:0.";
    QP_AV_DGID0 = 0x838, RW, "Destination GID bytes 0..3 (IPv4-mapped ::ffff:a.b.c.d for IPv4 peers).";
    QP_AV_DGID1 = 0x83C, RW, "Destination GID bytes 4..7.";
    QP_AV_DGID2 = 0x840, RW, "Destination GID bytes 8..11.";
    QP_AV_DGID3 = 0x844, RW, "Destination GID bytes 12..15.";
    QP_AV_PATH = 0x848, RW, "7:0 source GID index; 15:8 traffic class; 23:16 hop limit; 24 use CFG_TRAFFIC default DSCP instead of the traffic class.";
    QP_AV_FLOW = 0x84C, RW, "19:0 IPv6 flow label.";
    QP_AV_SPORT = 0x850, RW, "15:0 UDP source port for this QP; 0 = CFG_UDP_SPORT policy.";
    QP_SQ_BASE_LO = 0x854, RW, "Send queue ring IOVA, low 32 bits (stride-aligned). CREATE group.";
    QP_SQ_BASE_HI = 0x858, RW, "Send queue ring IOVA, high 32 bits.";
    QP_RQ_BASE_LO = 0x85C, RW, "Receive queue ring IOVA, low 32 bits. CREATE group.";
    QP_RQ_BASE_HI = 0x860, RW, "Receive queue ring IOVA, high 32 bits.";
    QP_RING_CFG = 0x864, RW, "4:0 log2 SQ entries; 11:8 log2 SQ stride; 20:16 log2 RQ entries; 27:24 log2 RQ stride; 31:28 log2 of the send window in PSNs (unacknowledged PSNs, 0 = 1 .. 15 = 32768). CREATE group.";
    QP_CQN = 0x868, RW, "15:0 send CQN; 31:16 receive CQN. CREATE group.";
    QP_SQ_INDEX = 0x86C, RO, "Query: 15:0 SQ producer index (last doorbell); 31:16 SQ consumer index (next WQE to complete).";
    QP_RQ_INDEX = 0x870, RO, "Query: 15:0 RQ producer index; 31:16 RQ consumer index.";
    QP_ERR_INFO = 0x874, RO, "Query: why the QP entered ERR: 7:0 vendor error; 15:8 completion status.";

    // ---- MR command window (0x900) ----
    MR_CMD_INDEX = 0x900, RW, "MR table index the next command acts on (key bits 31:8).";
    MR_CMD = 0x904, WO, "Command: 1 WRITE (load staged entry, mark valid), 2 INVALIDATE, 3 QUERY.";
    MR_CMD_STATUS = 0x908, RO, "0 BUSY; 15:8 result of the last command.";
    MR_KEY = 0x90C, RW, "Full 32-bit lkey/rkey: index in 31:8 (must equal MR_CMD_INDEX), key byte in 7:0.";
    MR_PD = 0x910, RW, "Protection domain (23:0).";
    MR_ACCESS = 0x914, RW, "7:0 access flags (ibv_access_flags); 31 VALID (read-only, from QUERY).";
    MR_VA_LO = 0x918, RW, "Start of the region as addressed by SGEs and remote VAs, low 32 bits.";
    MR_VA_HI = 0x91C, RW, "Start of the region, high 32 bits.";
    MR_LEN_LO = 0x920, RW, "Region length in bytes, low 32 bits.";
    MR_LEN_HI = 0x924, RW, "Region length in bytes, high 32 bits.";
    MR_DMA_LO = 0x928, RW, "IOVA the region is mapped at (DMA address = addr - VA + DMA), low 32 bits.";
    MR_DMA_HI = 0x92C, RW, "IOVA the region is mapped at, high 32 bits.";

    // ---- CQ command window (0xA00) ----
    CQ_CMD_CQN = 0xA00, RW, "CQN the next command acts on (15:0).";
    CQ_CMD = 0xA04, WO, "Command: 1 CREATE (load staged context, PI = CI = CQ_CI, disarmed), 2 DESTROY, 3 QUERY.";
    CQ_CMD_STATUS = 0xA08, RO, "0 BUSY; 15:8 result of the last command.";
    CQ_BASE_LO = 0xA0C, RW, "CQ ring IOVA, low 32 bits (32-byte aligned).";
    CQ_BASE_HI = 0xA10, RW, "CQ ring IOVA, high 32 bits.";
    CQ_CFG = 0xA14, RW, "4:0 log2 entries; 15:8 interrupt vector; 31 VALID (read-only, from QUERY).";
    CQ_CI = 0xA18, RW, "23:0 consumer index: initial value on CREATE, last doorbell value on QUERY.";
    CQ_PI = 0xA1C, RO, "Query: 23:0 producer index (next CQE the NIC writes).";
    CQ_STATE = 0xA20, RO, "Query: 0 armed; 1 armed for solicited only; 2 overflowed (CQ in error).";

    // ---- counters (0x1000): 64-bit, read LO then HI, cleared only by reset ----
    CNT_RX_FRAMES_LO = 0x1000, RO, "Frames received from the MAC, all kinds.";
    CNT_RX_FRAMES_HI = 0x1004, RO, "High half of CNT_RX_FRAMES.";
    CNT_RX_BYTES_LO = 0x1008, RO, "Bytes received from the MAC (frames without FCS).";
    CNT_RX_BYTES_HI = 0x100C, RO, "High half of CNT_RX_BYTES.";
    CNT_RX_ROCE_LO = 0x1010, RO, "RoCE packets accepted (passed every check, given to responder or completer).";
    CNT_RX_ROCE_HI = 0x1014, RO, "High half of CNT_RX_ROCE.";
    CNT_RX_DROP_NOT_ROCE_LO = 0x1018, RO, "Dropped: not RoCE (EtherType, IP protocol, UDP port 4791).";
    CNT_RX_DROP_NOT_ROCE_HI = 0x101C, RO, "High half of CNT_RX_DROP_NOT_ROCE.";
    CNT_RX_DROP_ADDR_LO = 0x1020, RO, "Dropped: destination MAC or IP matches no local address or valid GID.";
    CNT_RX_DROP_ADDR_HI = 0x1024, RO, "High half of CNT_RX_DROP_ADDR.";
    CNT_RX_DROP_LENGTH_LO = 0x1028, RO, "Dropped: length error (IP or UDP length vs frame, truncated header, pad count).";
    CNT_RX_DROP_LENGTH_HI = 0x102C, RO, "High half of CNT_RX_DROP_LENGTH.";
    CNT_RX_DROP_HEADER_LO = 0x1030, RO, "Dropped: malformed header (IP version or checksum, BTH version, unsupported opcode).";
    CNT_RX_DROP_HEADER_HI = 0x1034, RO, "High half of CNT_RX_DROP_HEADER.";
    CNT_RX_DROP_ICRC_LO = 0x1038, RO, "Dropped: bad ICRC.";
    CNT_RX_DROP_ICRC_HI = 0x103C, RO, "High half of CNT_RX_DROP_ICRC.";
    CNT_RX_DROP_UNKNOWN_QP_LO = 0x1040, RO, "Dropped: destination QPN out of range or reserved.";
    CNT_RX_DROP_UNKNOWN_QP_HI = 0x1044, RO, "High half of CNT_RX_DROP_UNKNOWN_QP.";
    CNT_RX_DROP_QP_STATE_LO = 0x1048, RO, "Dropped: QP in a state that takes no packets (RESET, INIT, ERR).";
    CNT_RX_DROP_QP_STATE_HI = 0x104C, RO, "High half of CNT_RX_DROP_QP_STATE.";
    CNT_RX_DROP_OUT_OF_SEQ_LO = 0x1050, RO, "Dropped: PSN ahead of the expected one (out of sequence; NAKed if the first since the last in-sequence packet or not after the previous one, else silently).";
    CNT_RX_DROP_OUT_OF_SEQ_HI = 0x1054, RO, "High half of CNT_RX_DROP_OUT_OF_SEQ.";
    CNT_RX_DROP_OVERRUN_LO = 0x1058, RO, "Reads 0 in this NIC: a frame dropped for want of receive buffer counts in CNT_RX_DROP_NO_ROOM.";
    CNT_RX_DROP_OVERRUN_HI = 0x105C, RO, "High half of CNT_RX_DROP_OVERRUN.";
    CNT_RX_DUPLICATE_LO = 0x1060, RO, "Duplicate requests (re-acknowledged or replayed, not executed).";
    CNT_RX_DUPLICATE_HI = 0x1064, RO, "High half of CNT_RX_DUPLICATE.";
    CNT_TX_FRAMES_LO = 0x1068, RO, "Frames sent to the MAC, all kinds.";
    CNT_TX_FRAMES_HI = 0x106C, RO, "High half of CNT_TX_FRAMES.";
    CNT_TX_BYTES_LO = 0x1070, RO, "Bytes sent to the MAC (frames without FCS).";
    CNT_TX_BYTES_HI = 0x1074, RO, "High half of CNT_TX_BYTES.";
    CNT_TX_ACK_LO = 0x1078, RO, "ACKs sent (AETH syndrome ACK, excluding READ responses and atomic ACKs).";
    CNT_TX_ACK_HI = 0x107C, RO, "High half of CNT_TX_ACK.";
    CNT_TX_NAK_PSN_SEQ_LO = 0x1080, RO, "NAKs sent: PSN sequence error.";
    CNT_TX_NAK_PSN_SEQ_HI = 0x1084, RO, "High half of CNT_TX_NAK_PSN_SEQ.";
    CNT_TX_NAK_RNR_LO = 0x1088, RO, "NAKs sent: receiver not ready.";
    CNT_TX_NAK_RNR_HI = 0x108C, RO, "High half of CNT_TX_NAK_RNR.";
    CNT_TX_NAK_INV_REQ_LO = 0x1090, RO, "NAKs sent: invalid request.";
    CNT_TX_NAK_INV_REQ_HI = 0x1094, RO, "High half of CNT_TX_NAK_INV_REQ.";
    CNT_TX_NAK_REM_ACCESS_LO = 0x1098, RO, "NAKs sent: remote access error.";
    CNT_TX_NAK_REM_ACCESS_HI = 0x109C, RO, "High half of CNT_TX_NAK_REM_ACCESS.";
    CNT_TX_NAK_REM_OP_LO = 0x10A0, RO, "NAKs sent: remote operational error.";
    CNT_TX_NAK_REM_OP_HI = 0x10A4, RO, "High half of CNT_TX_NAK_REM_OP.";
    CNT_RX_ACK_LO = 0x10A8, RO, "ACKs received.";
    CNT_RX_ACK_HI = 0x10AC, RO, "High half of CNT_RX_ACK.";
    CNT_RX_NAK_PSN_SEQ_LO = 0x10B0, RO, "NAKs received: PSN sequence error.";
    CNT_RX_NAK_PSN_SEQ_HI = 0x10B4, RO, "High half of CNT_RX_NAK_PSN_SEQ.";
    CNT_RX_NAK_RNR_LO = 0x10B8, RO, "NAKs received: receiver not ready.";
    CNT_RX_NAK_RNR_HI = 0x10BC, RO, "High half of CNT_RX_NAK_RNR.";
    CNT_RX_NAK_INV_REQ_LO = 0x10C0, RO, "NAKs received: invalid request.";
    CNT_RX_NAK_INV_REQ_HI = 0x10C4, RO, "High half of CNT_RX_NAK_INV_REQ.";
    CNT_RX_NAK_REM_ACCESS_LO = 0x10C8, RO, "NAKs received: remote access error.";
    CNT_RX_NAK_REM_ACCESS_HI = 0x10CC, RO, "High half of CNT_RX_NAK_REM_ACCESS.";
    CNT_RX_NAK_REM_OP_LO = 0x10D0, RO, "NAKs received: remote operational error.";
    CNT_RX_NAK_REM_OP_HI = 0x10D4, RO, "High half of CNT_RX_NAK_REM_OP.";
    CNT_RETRANSMIT_LO = 0x10D8, RO, "Request packets retransmitted (Go-Back-N, and tail-loss probes).";
    CNT_RETRANSMIT_HI = 0x10DC, RO, "High half of CNT_RETRANSMIT.";
    CNT_RETRY_EVENT_LO = 0x10E0, RO, "Go-Back-N rewinds (after NAK, implied NAK or timeout).";
    CNT_RETRY_EVENT_HI = 0x10E4, RO, "High half of CNT_RETRY_EVENT.";
    CNT_ACK_TIMEOUT_LO = 0x10E8, RO, "Local ACK timer expiries.";
    CNT_ACK_TIMEOUT_HI = 0x10EC, RO, "High half of CNT_ACK_TIMEOUT.";
    CNT_RETRY_EXCEEDED_LO = 0x10F0, RO, "QPs failed with retry_cnt or rnr_retry exhausted.";
    CNT_RETRY_EXCEEDED_HI = 0x10F4, RO, "High half of CNT_RETRY_EXCEEDED.";
    CNT_CNP_SENT_LO = 0x10F8, RO, "CNPs sent by the DCQCN notification point (mlx5 np_cnp_sent).";
    CNT_CNP_SENT_HI = 0x10FC, RO, "High half of CNT_CNP_SENT.";
    CNT_CNP_RECEIVED_LO = 0x1100, RO, "CNPs received for a local GID and a QPN of the build (given to the DCQCN reaction point).";
    CNT_CNP_RECEIVED_HI = 0x1104, RO, "High half of CNT_CNP_RECEIVED.";
    CNT_RX_ECN_CE_LO = 0x1108, RO, "RoCEv2 RC packets accepted with IP ECN CE (mlx5 np_ecn_marked_roce_packets).";
    CNT_RX_ECN_CE_HI = 0x110C, RO, "High half of CNT_RX_ECN_CE.";
    CNT_PFC_PAUSE_LO = 0x1110, RO, "PFC frames received whose class-enable vector names the RoCE or the CNP priority of CFG_PFC.";
    CNT_PFC_PAUSE_HI = 0x1114, RO, "High half of CNT_PFC_PAUSE.";
    CNT_PFC_PAUSED_CYCLES_LO = 0x1118, RO, "Core clock cycles during which the RoCE priority (CFG_PFC 2:0) was paused by PFC (received frames or the MAC's pause input).";
    CNT_PFC_PAUSED_CYCLES_HI = 0x111C, RO, "High half of CNT_PFC_PAUSED_CYCLES.";
    CNT_CQE_LO = 0x1120, RO, "CQEs written.";
    CNT_CQE_HI = 0x1124, RO, "High half of CNT_CQE.";
    CNT_DMA_ERROR_LO = 0x1128, RO, "DMA transactions the host interface reported as failed.";
    CNT_DMA_ERROR_HI = 0x112C, RO, "High half of CNT_DMA_ERROR.";
    CNT_RP_CNP_NO_LIMITER_LO = 0x1130, RO, "CNPs for a DCQCN-enabled QP without a limiter that found the reaction point's pool of 16 limiters in use (the QP stays unlimited).";
    CNT_RP_CNP_NO_LIMITER_HI = 0x1134, RO, "High half of CNT_RP_CNP_NO_LIMITER.";
    CNT_RP_CNP_DISABLED_LO = 0x1138, RO, "CNPs received for a QP whose CC_QP_DCQCN is 0, or while CFG_CONTROL.DCQCN_RP_ENABLE is clear (no rate change).";
    CNT_RP_CNP_DISABLED_HI = 0x113C, RO, "High half of CNT_RP_CNP_DISABLED.";
    CNT_RP_TICK_OVERRUN_LO = 0x1140, RO, "Microsecond ticks of the reaction point that came while the previous tick's sweep was still pending (timers fell one microsecond behind).";
    CNT_RP_TICK_OVERRUN_HI = 0x1144, RO, "High half of CNT_RP_TICK_OVERRUN.";
    CNT_RP_CNP_DROPPED_LO = 0x1148, RO, "CNPs lost because the reaction point's 16-entry CNP queue was full.";
    CNT_RP_CNP_DROPPED_HI = 0x114C, RO, "High half of CNT_RP_CNP_DROPPED.";
    CNT_RP_BYTES_DROPPED_LO = 0x1150, RO, "Bytes-sent events (one per request packet with payload) lost because the reaction point's 16-entry bytes queue was full.";
    CNT_RP_BYTES_DROPPED_HI = 0x1154, RO, "High half of CNT_RP_BYTES_DROPPED.";
    CNT_RP_RATE_CUTS_LO = 0x1158, RO, "Rate decreases made by the DCQCN reaction point (a rate-reduce period that ended with a CNP pending), all QPs.";
    CNT_RP_RATE_CUTS_HI = 0x115C, RO, "High half of CNT_RP_RATE_CUTS.";
    CNT_RX_DROP_NO_ROOM_LO = 0x1160, RO, "Frames dropped whole by the receive FIFO because it had less room than a largest frame when their first beat came (host DMA slower than the link; mlx5 rx_discards_phy). With PFC on and the headroom of docs/CONGESTION.md it stays 0.";
    CNT_RX_DROP_NO_ROOM_HI = 0x1164, RO, "High half of CNT_RX_DROP_NO_ROOM.";
    CNT_PFC_XOFF_SENT_LO = 0x1168, RO, "PFC XOFF frames sent on the RoCE priority, first ones and refreshes (mlx5 tx_prio_pause).";
    CNT_PFC_XOFF_SENT_HI = 0x116C, RO, "High half of CNT_PFC_XOFF_SENT.";
    CNT_PFC_XON_SENT_LO = 0x1170, RO, "PFC XON frames (pause time 0) sent on the RoCE priority.";
    CNT_PFC_XON_SENT_HI = 0x1174, RO, "High half of CNT_PFC_XON_SENT.";
    CNT_RESP_ACK_PARKED_LO = 0x1178, RO, "Responses (ACKs, NAKs, atomic acknowledges, READs to answer) the responder moved aside while PFC paused the RoCE priority, so that it kept draining the receive FIFO (all are sent later, in order; docs/CONGESTION.md).";
    CNT_RESP_ACK_PARKED_HI = 0x117C, RO, "High half of CNT_RESP_ACK_PARKED.";
    CNT_PFC_RX_XOFF_P0_LO = 0x1180, RO, "PFC frames received whose class-enable vector names priority 0 with a nonzero pause time (XOFF of priority 0; with the XON count, mlx5 rx_prio0_pause).";
    CNT_PFC_RX_XOFF_P0_HI = 0x1184, RO, "High half of CNT_PFC_RX_XOFF_P0.";
    CNT_PFC_RX_XOFF_P1_LO = 0x1188, RO, "PFC frames received whose class-enable vector names priority 1 with a nonzero pause time (XOFF of priority 1; with the XON count, mlx5 rx_prio1_pause).";
    CNT_PFC_RX_XOFF_P1_HI = 0x118C, RO, "High half of CNT_PFC_RX_XOFF_P1.";
    CNT_PFC_RX_XOFF_P2_LO = 0x1190, RO, "PFC frames received whose class-enable vector names priority 2 with a nonzero pause time (XOFF of priority 2; with the XON count, mlx5 rx_prio2_pause).";
    CNT_PFC_RX_XOFF_P2_HI = 0x1194, RO, "High half of CNT_PFC_RX_XOFF_P2.";
    CNT_PFC_RX_XOFF_P3_LO = 0x1198, RO, "PFC frames received whose class-enable vector names priority 3 with a nonzero pause time (XOFF of priority 3; with the XON count, mlx5 rx_prio3_pause).";
    CNT_PFC_RX_XOFF_P3_HI = 0x119C, RO, "High half of CNT_PFC_RX_XOFF_P3.";
    CNT_PFC_RX_XOFF_P4_LO = 0x11A0, RO, "PFC frames received whose class-enable vector names priority 4 with a nonzero pause time (XOFF of priority 4; with the XON count, mlx5 rx_prio4_pause).";
    CNT_PFC_RX_XOFF_P4_HI = 0x11A4, RO, "High half of CNT_PFC_RX_XOFF_P4.";
    CNT_PFC_RX_XOFF_P5_LO = 0x11A8, RO, "PFC frames received whose class-enable vector names priority 5 with a nonzero pause time (XOFF of priority 5; with the XON count, mlx5 rx_prio5_pause).";
    CNT_PFC_RX_XOFF_P5_HI = 0x11AC, RO, "High half of CNT_PFC_RX_XOFF_P5.";
    CNT_PFC_RX_XOFF_P6_LO = 0x11B0, RO, "PFC frames received whose class-enable vector names priority 6 with a nonzero pause time (XOFF of priority 6; with the XON count, mlx5 rx_prio6_pause).";
    CNT_PFC_RX_XOFF_P6_HI = 0x11B4, RO, "High half of CNT_PFC_RX_XOFF_P6.";
    CNT_PFC_RX_XOFF_P7_LO = 0x11B8, RO, "PFC frames received whose class-enable vector names priority 7 with a nonzero pause time (XOFF of priority 7; with the XON count, mlx5 rx_prio7_pause).";
    CNT_PFC_RX_XOFF_P7_HI = 0x11BC, RO, "High half of CNT_PFC_RX_XOFF_P7.";
    CNT_PFC_RX_XON_P0_LO = 0x11C0, RO, "PFC frames received whose class-enable vector names priority 0 with pause time 0 (XON of priority 0).";
    CNT_PFC_RX_XON_P0_HI = 0x11C4, RO, "High half of CNT_PFC_RX_XON_P0.";
    CNT_PFC_RX_XON_P1_LO = 0x11C8, RO, "PFC frames received whose class-enable vector names priority 1 with pause time 0 (XON of priority 1).";
    CNT_PFC_RX_XON_P1_HI = 0x11CC, RO, "High half of CNT_PFC_RX_XON_P1.";
    CNT_PFC_RX_XON_P2_LO = 0x11D0, RO, "PFC frames received whose class-enable vector names priority 2 with pause time 0 (XON of priority 2).";
    CNT_PFC_RX_XON_P2_HI = 0x11D4, RO, "High half of CNT_PFC_RX_XON_P2.";
    CNT_PFC_RX_XON_P3_LO = 0x11D8, RO, "PFC frames received whose class-enable vector names priority 3 with pause time 0 (XON of priority 3).";
    CNT_PFC_RX_XON_P3_HI = 0x11DC, RO, "High half of CNT_PFC_RX_XON_P3.";
    CNT_PFC_RX_XON_P4_LO = 0x11E0, RO, "PFC frames received whose class-enable vector names priority 4 with pause time 0 (XON of priority 4).";
    CNT_PFC_RX_XON_P4_HI = 0x11E4, RO, "High half of CNT_PFC_RX_XON_P4.";
    CNT_PFC_RX_XON_P5_LO = 0x11E8, RO, "PFC frames received whose class-enable vector names priority 5 with pause time 0 (XON of priority 5).";
    CNT_PFC_RX_XON_P5_HI = 0x11EC, RO, "High half of CNT_PFC_RX_XON_P5.";
    CNT_PFC_RX_XON_P6_LO = 0x11F0, RO, "PFC frames received whose class-enable vector names priority 6 with pause time 0 (XON of priority 6).";
    CNT_PFC_RX_XON_P6_HI = 0x11F4, RO, "High half of CNT_PFC_RX_XON_P6.";
    CNT_PFC_RX_XON_P7_LO = 0x11F8, RO, "PFC frames received whose class-enable vector names priority 7 with pause time 0 (XON of priority 7).";
    CNT_PFC_RX_XON_P7_HI = 0x11FC, RO, "High half of CNT_PFC_RX_XON_P7.";
    CNT_PFC_PAUSED_CYCLES_P0_LO = 0x1200, RO, "Core clock cycles during which priority 0 was paused (received PFC frames or the MAC's pause input; mlx5 rx_prio0_pause_duration counts microseconds).";
    CNT_PFC_PAUSED_CYCLES_P0_HI = 0x1204, RO, "High half of CNT_PFC_PAUSED_CYCLES_P0.";
    CNT_PFC_PAUSED_CYCLES_P1_LO = 0x1208, RO, "Core clock cycles during which priority 1 was paused (received PFC frames or the MAC's pause input; mlx5 rx_prio1_pause_duration counts microseconds).";
    CNT_PFC_PAUSED_CYCLES_P1_HI = 0x120C, RO, "High half of CNT_PFC_PAUSED_CYCLES_P1.";
    CNT_PFC_PAUSED_CYCLES_P2_LO = 0x1210, RO, "Core clock cycles during which priority 2 was paused (received PFC frames or the MAC's pause input; mlx5 rx_prio2_pause_duration counts microseconds).";
    CNT_PFC_PAUSED_CYCLES_P2_HI = 0x1214, RO, "High half of CNT_PFC_PAUSED_CYCLES_P2.";
    CNT_PFC_PAUSED_CYCLES_P3_LO = 0x1218, RO, "Core clock cycles during which priority 3 was paused (received PFC frames or the MAC's pause input; mlx5 rx_prio3_pause_duration counts microseconds).";
    CNT_PFC_PAUSED_CYCLES_P3_HI = 0x121C, RO, "High half of CNT_PFC_PAUSED_CYCLES_P3.";
    CNT_PFC_PAUSED_CYCLES_P4_LO = 0x1220, RO, "Core clock cycles during which priority 4 was paused (received PFC frames or the MAC's pause input; mlx5 rx_prio4_pause_duration counts microseconds).";
    CNT_PFC_PAUSED_CYCLES_P4_HI = 0x1224, RO, "High half of CNT_PFC_PAUSED_CYCLES_P4.";
    CNT_PFC_PAUSED_CYCLES_P5_LO = 0x1228, RO, "Core clock cycles during which priority 5 was paused (received PFC frames or the MAC's pause input; mlx5 rx_prio5_pause_duration counts microseconds).";
    CNT_PFC_PAUSED_CYCLES_P5_HI = 0x122C, RO, "High half of CNT_PFC_PAUSED_CYCLES_P5.";
    CNT_PFC_PAUSED_CYCLES_P6_LO = 0x1230, RO, "Core clock cycles during which priority 6 was paused (received PFC frames or the MAC's pause input; mlx5 rx_prio6_pause_duration counts microseconds).";
    CNT_PFC_PAUSED_CYCLES_P6_HI = 0x1234, RO, "High half of CNT_PFC_PAUSED_CYCLES_P6.";
    CNT_PFC_PAUSED_CYCLES_P7_LO = 0x1238, RO, "Core clock cycles during which priority 7 was paused (received PFC frames or the MAC's pause input; mlx5 rx_prio7_pause_duration counts microseconds).";
    CNT_PFC_PAUSED_CYCLES_P7_HI = 0x123C, RO, "High half of CNT_PFC_PAUSED_CYCLES_P7.";
    CNT_PFC_TX_XOFF_P0_LO = 0x1240, RO, "PFC XOFF frames sent on priority 0, first ones and refreshes (the NIC sends on CFG_PFC.DATA_PRIO only; mlx5 tx_prio0_pause).";
    CNT_PFC_TX_XOFF_P0_HI = 0x1244, RO, "High half of CNT_PFC_TX_XOFF_P0.";
    CNT_PFC_TX_XOFF_P1_LO = 0x1248, RO, "PFC XOFF frames sent on priority 1, first ones and refreshes (the NIC sends on CFG_PFC.DATA_PRIO only; mlx5 tx_prio1_pause).";
    CNT_PFC_TX_XOFF_P1_HI = 0x124C, RO, "High half of CNT_PFC_TX_XOFF_P1.";
    CNT_PFC_TX_XOFF_P2_LO = 0x1250, RO, "PFC XOFF frames sent on priority 2, first ones and refreshes (the NIC sends on CFG_PFC.DATA_PRIO only; mlx5 tx_prio2_pause).";
    CNT_PFC_TX_XOFF_P2_HI = 0x1254, RO, "High half of CNT_PFC_TX_XOFF_P2.";
    CNT_PFC_TX_XOFF_P3_LO = 0x1258, RO, "PFC XOFF frames sent on priority 3, first ones and refreshes (the NIC sends on CFG_PFC.DATA_PRIO only; mlx5 tx_prio3_pause).";
    CNT_PFC_TX_XOFF_P3_HI = 0x125C, RO, "High half of CNT_PFC_TX_XOFF_P3.";
    CNT_PFC_TX_XOFF_P4_LO = 0x1260, RO, "PFC XOFF frames sent on priority 4, first ones and refreshes (the NIC sends on CFG_PFC.DATA_PRIO only; mlx5 tx_prio4_pause).";
    CNT_PFC_TX_XOFF_P4_HI = 0x1264, RO, "High half of CNT_PFC_TX_XOFF_P4.";
    CNT_PFC_TX_XOFF_P5_LO = 0x1268, RO, "PFC XOFF frames sent on priority 5, first ones and refreshes (the NIC sends on CFG_PFC.DATA_PRIO only; mlx5 tx_prio5_pause).";
    CNT_PFC_TX_XOFF_P5_HI = 0x126C, RO, "High half of CNT_PFC_TX_XOFF_P5.";
    CNT_PFC_TX_XOFF_P6_LO = 0x1270, RO, "PFC XOFF frames sent on priority 6, first ones and refreshes (the NIC sends on CFG_PFC.DATA_PRIO only; mlx5 tx_prio6_pause).";
    CNT_PFC_TX_XOFF_P6_HI = 0x1274, RO, "High half of CNT_PFC_TX_XOFF_P6.";
    CNT_PFC_TX_XOFF_P7_LO = 0x1278, RO, "PFC XOFF frames sent on priority 7, first ones and refreshes (the NIC sends on CFG_PFC.DATA_PRIO only; mlx5 tx_prio7_pause).";
    CNT_PFC_TX_XOFF_P7_HI = 0x127C, RO, "High half of CNT_PFC_TX_XOFF_P7.";
    CNT_PFC_TX_XON_P0_LO = 0x1280, RO, "PFC XON frames (pause time 0) sent on priority 0.";
    CNT_PFC_TX_XON_P0_HI = 0x1284, RO, "High half of CNT_PFC_TX_XON_P0.";
    CNT_PFC_TX_XON_P1_LO = 0x1288, RO, "PFC XON frames (pause time 0) sent on priority 1.";
    CNT_PFC_TX_XON_P1_HI = 0x128C, RO, "High half of CNT_PFC_TX_XON_P1.";
    CNT_PFC_TX_XON_P2_LO = 0x1290, RO, "PFC XON frames (pause time 0) sent on priority 2.";
    CNT_PFC_TX_XON_P2_HI = 0x1294, RO, "High half of CNT_PFC_TX_XON_P2.";
    CNT_PFC_TX_XON_P3_LO = 0x1298, RO, "PFC XON frames (pause time 0) sent on priority 3.";
    CNT_PFC_TX_XON_P3_HI = 0x129C, RO, "High half of CNT_PFC_TX_XON_P3.";
    CNT_PFC_TX_XON_P4_LO = 0x12A0, RO, "PFC XON frames (pause time 0) sent on priority 4.";
    CNT_PFC_TX_XON_P4_HI = 0x12A4, RO, "High half of CNT_PFC_TX_XON_P4.";
    CNT_PFC_TX_XON_P5_LO = 0x12A8, RO, "PFC XON frames (pause time 0) sent on priority 5.";
    CNT_PFC_TX_XON_P5_HI = 0x12AC, RO, "High half of CNT_PFC_TX_XON_P5.";
    CNT_PFC_TX_XON_P6_LO = 0x12B0, RO, "PFC XON frames (pause time 0) sent on priority 6.";
    CNT_PFC_TX_XON_P6_HI = 0x12B4, RO, "High half of CNT_PFC_TX_XON_P6.";
    CNT_PFC_TX_XON_P7_LO = 0x12B8, RO, "PFC XON frames (pause time 0) sent on priority 7.";
    CNT_PFC_TX_XON_P7_HI = 0x12BC, RO, "High half of CNT_PFC_TX_XON_P7.";
    CNT_REQ_PFC_YIELD_LO = 0x12C0, RO, "Send jobs the requester set aside at their next packet while PFC paused the RoCE priority and a READ response or an ACK waited for it; it takes them meanwhile, and the message goes on from that packet after the pause (docs/CONGESTION.md).";
    CNT_REQ_PFC_YIELD_HI = 0x12C4, RO, "High half of CNT_REQ_PFC_YIELD.";
    CNT_REQ_SHAPER_YIELD_LO = 0x12C8, RO, "Send jobs the requester set aside because the rate shaper held their QP's next packet while other work waited; the message goes on from that packet when the QP is next served (docs/CONGESTION.md).";
    CNT_REQ_SHAPER_YIELD_HI = 0x12CC, RO, "High half of CNT_REQ_SHAPER_YIELD.";
    CNT_TLP_PROBE_LO = 0x12D0, RO, "Tail-loss probes the requester sent: a quarter of the local ACK timeout after a window of SEND / WRITE went out unanswered, its highest PSN sent again alone (the packet also counts in CNT_RETRANSMIT).";
    CNT_TLP_PROBE_HI = 0x12D4, RO, "High half of CNT_TLP_PROBE.";

    // ---- doorbells: one page per 512 QPs / CQs, mappable into user processes ----
    DB_SQ[MAX_QPS; DB_QP_STRIDE] = 0x10_0000, WO, "SQ doorbell of QP n: 15:0 new SQ producer index.";
    DB_RQ[MAX_QPS; DB_QP_STRIDE] = 0x10_0004, WO, "RQ doorbell of QP n: 15:0 new RQ producer index.";
    DB_CQ_CI[MAX_CQS; DB_CQ_STRIDE] = 0x18_0000, WO, "CQ n consumer index update: 23:0 CI.";
    DB_CQ_ARM[MAX_CQS; DB_CQ_STRIDE] = 0x18_0004, WO, "CQ n CI update and arm: 23:0 CI; 25:24 arm mode (1 next, 2 solicited).";
}

/// Per-priority PFC counters: each kind is eight consecutive counters, priority n at
/// `<kind>_P0_LO + n * PFC_PRIO_COUNTER_STRIDE` (the hardware and the driver rely on it).
pub const PFC_PRIO_COUNTER_STRIDE: u32 = 8;
const _: () = assert!(
    CNT_PFC_RX_XOFF_P7_LO == CNT_PFC_RX_XOFF_P0_LO + 7 * PFC_PRIO_COUNTER_STRIDE
        && CNT_PFC_RX_XON_P7_LO == CNT_PFC_RX_XON_P0_LO + 7 * PFC_PRIO_COUNTER_STRIDE
        && CNT_PFC_PAUSED_CYCLES_P7_LO == CNT_PFC_PAUSED_CYCLES_P0_LO + 7 * PFC_PRIO_COUNTER_STRIDE
        && CNT_PFC_TX_XOFF_P7_LO == CNT_PFC_TX_XOFF_P0_LO + 7 * PFC_PRIO_COUNTER_STRIDE
        && CNT_PFC_TX_XON_P7_LO == CNT_PFC_TX_XON_P0_LO + 7 * PFC_PRIO_COUNTER_STRIDE
);

/// Number of 64-bit counters.
pub const NUM_COUNTERS: u32 = (CNT_TLP_PROBE_LO - CNT_BASE) / 8 + 1;

/// The counters as (name without the `CNT_` prefix and `_LO` suffix, LO offset), in address
/// order. For dumps and for the hardware's counter index (`(offset - CNT_BASE) / 8`).
pub fn counters() -> impl Iterator<Item = (&'static str, u32)> {
    REGISTERS.iter().filter_map(|r| {
        let stem = r.name.strip_prefix("CNT_")?.strip_suffix("_LO")?;
        Some((stem, r.offset))
    })
}

// ---------------------------------------------------------------------------------------------
// Register fields. One module per packed register; names follow the register.

/// [`ID_CAPS`] bits. Drivers ignore bits they do not know (a newer minor may add some).
pub mod caps {
    /// RoCEv2 over IPv4.
    pub const IPV4: u32 = 1 << 0;
    /// RoCEv2 over IPv6.
    pub const IPV6: u32 = 1 << 1;
    /// RoCEv1 (EtherType 0x8915, GRH).
    pub const ROCEV1: u32 = 1 << 2;
    /// DCQCN reaction point (per-QP rate shaper).
    pub const DCQCN_RP: u32 = 1 << 3;
    /// DCQCN notification point (CNP generation).
    pub const DCQCN_NP: u32 = 1 << 4;
    /// PFC pause honoured on transmit.
    pub const PFC: u32 = 1 << 5;
    /// ATOMIC compare-swap and fetch-add (requester and responder).
    pub const ATOMICS: u32 = 1 << 6;
    /// RDMA READ (requester and responder).
    pub const RDMA_READ: u32 = 1 << 7;
    /// SEND with invalidate (responder side invalidation).
    pub const SEND_INV: u32 = 1 << 8;
    /// LOCAL_INV work requests.
    pub const LOCAL_INV: u32 = 1 << 9;
    /// Inline data in send WQEs.
    pub const INLINE: u32 = 1 << 10;
    /// 802.1Q VLAN tagging (reserved for a later minor version).
    pub const VLAN: u32 = 1 << 11;
}

pub mod id_datapath {
    use crate::host::Field;
    pub const WIDTH_BITS: Field = Field::new(0, 16);
}

pub mod id_ring_limits {
    use crate::host::Field;
    pub const LOG2_SQ_ENTRIES: Field = Field::new(0, 5);
    pub const LOG2_RQ_ENTRIES: Field = Field::new(8, 5);
    pub const LOG2_CQ_ENTRIES: Field = Field::new(16, 5);
    pub const LOG2_STRIDE: Field = Field::new(24, 4);
}

pub mod id_qp_limits {
    use crate::host::Field;
    pub const MAX_PMTU: Field = Field::new(0, 4);
    pub const MAX_RD_ATOMIC: Field = Field::new(8, 8);
    pub const MAX_DEST_RD_ATOMIC: Field = Field::new(16, 8);
    pub const MAX_SGE: Field = Field::new(24, 8);
}

pub mod id_misc {
    use crate::host::Field;
    pub const GID_ENTRIES: Field = Field::new(0, 8);
    pub const VECTORS: Field = Field::new(8, 8);
    pub const PD_BITS: Field = Field::new(16, 8);
}

pub mod cfg_control {
    pub const RX_ENABLE: u32 = 1 << 0;
    pub const TX_ENABLE: u32 = 1 << 1;
    pub const ROCEV1_ENABLE: u32 = 1 << 2;
    pub const IPV6_ENABLE: u32 = 1 << 3;
    pub const DCQCN_RP_ENABLE: u32 = 1 << 4;
    pub const DCQCN_NP_ENABLE: u32 = 1 << 5;
    pub const PFC_ENABLE: u32 = 1 << 6;
}

pub mod cfg_status {
    pub const READY: u32 = 1 << 0;
    pub const LINK_UP: u32 = 1 << 1;
    pub const FATAL: u32 = 1 << 2;
}

pub mod cfg_udp_sport {
    use crate::host::Field;
    pub const BASE: Field = Field::new(0, 16);
    /// Number of low bits of the port filled with per-QP entropy (0..=14).
    pub const ENTROPY_BITS: Field = Field::new(16, 4);
    /// 1: every QP uses BASE unchanged (for captures and debugging).
    pub const FIXED: Field = Field::new(24, 1);
}

pub mod cfg_traffic {
    use crate::host::Field;
    pub const DEFAULT_DSCP: Field = Field::new(0, 6);
    pub const DATA_ECN: Field = Field::new(6, 2);
    pub const CNP_DSCP: Field = Field::new(8, 6);
    pub const ACK_ECN: Field = Field::new(14, 2);
    pub const CNP_ECN: Field = Field::new(16, 2);
    /// Send every RoCE frame with an 802.1Q tag (VID [`VLAN_VID`], PCP from `CFG_PFC`).
    pub const VLAN_TAG: Field = Field::new(18, 1);
    /// The tag's VLAN identifier (0 ..= 4094; 0 is a priority tag, IEEE 802.1Q 9.6).
    pub const VLAN_VID: Field = Field::new(20, 12);
}

pub mod cfg_pfc {
    use crate::host::Field;
    pub const DATA_PRIO: Field = Field::new(0, 3);
    pub const CNP_PRIO: Field = Field::new(4, 3);
    /// Link bit times per core clock cycle: floor(line rate in b/s / core clock in Hz), 1..;
    /// a PFC pause quantum (512 bit times) lasts 512 / LINK_BITS cycles.
    pub const LINK_BITS: Field = Field::new(16, 16);
}

/// [`CFG_PFC_XOFF`] fields: the receive FIFO's PFC thresholds, in 8-byte words.
pub mod cfg_pfc_xoff {
    use crate::host::Field;
    /// Send XOFF when the FIFO holds at least this many words.
    pub const XOFF: Field = Field::new(0, 16);
    /// Send XON when the FIFO holds fewer than this many words (at most XOFF).
    pub const XON: Field = Field::new(16, 16);
    /// Words of the receive FIFO in front of the parser (8 bytes each).
    pub const FIFO_WORDS: u32 = 4096;
    /// Bytes of a FIFO word.
    pub const WORD_BYTES: u32 = 8;
}

/// [`CFG_PFC_QUANTA`] fields.
pub mod cfg_pfc_quanta {
    use crate::host::Field;
    /// Pause time of a sent XOFF, in quanta of 512 bit times.
    pub const QUANTA: Field = Field::new(0, 16);
}

/// [`CFG_SQ_QUANTUM`] fields.
pub mod cfg_sq_quantum {
    use crate::host::Field;
    pub const PACKETS: Field = Field::new(0, 8);
}

pub mod cfg_ack_coalesce {
    use crate::host::Field;
    /// At least one ACK every this many executed packets of a QP (1: every packet; 0: no count).
    pub const EVERY: Field = Field::new(0, 8);
}

/// [`CC_QP_RATE`] fields.
pub mod cc_qp_rate {
    use crate::host::Field;
    /// The QP's current limit in Mb/s (0 when not limited).
    pub const MBPS: Field = Field::new(0, 20);
    /// The QPN the word describes (CC_QP_SELECT's, a few cycles after its write).
    pub const QPN: Field = Field::new(20, 10);
    /// The QP holds a rate-shaper slot.
    pub const LIMITED: Field = Field::new(30, 1);
}

pub mod cc_rp_flags {
    pub const CLAMP_TGT_RATE: u32 = 1 << 0;
    pub const CLAMP_TGT_RATE_AFTER_TIME_INC: u32 = 1 << 1;
}

pub mod irq_status {
    pub const ASYNC: u32 = 1 << 0;
    pub const FATAL: u32 = 1 << 1;
    pub const CMD_DONE: u32 = 1 << 2;
}

pub mod async_event {
    use crate::host::Field;
    pub const ID: Field = Field::new(0, 24);
    pub const TYPE: Field = Field::new(24, 5);
    pub const VALID: Field = Field::new(31, 1);
}

pub mod async_event_info {
    use crate::host::Field;
    pub const VENDOR_ERR: Field = Field::new(0, 8);
    pub const STATUS: Field = Field::new(8, 8);
}

pub mod gid_attr {
    use crate::host::Field;
    pub const TYPE: Field = Field::new(0, 2);
}

/// Shared by [`QP_CMD_STATUS`], [`MR_CMD_STATUS`] and [`CQ_CMD_STATUS`].
pub mod cmd_status {
    use crate::host::Field;
    pub const BUSY: Field = Field::new(0, 1);
    pub const RESULT: Field = Field::new(8, 8);
}

/// [`QP_CMD`] values.
pub mod qp_cmd {
    pub const MODIFY: u32 = 1;
    pub const QUERY: u32 = 2;
}

/// [`MR_CMD`] values.
pub mod mr_cmd {
    pub const WRITE: u32 = 1;
    pub const INVALIDATE: u32 = 2;
    pub const QUERY: u32 = 3;
}

/// [`CQ_CMD`] values.
pub mod cq_cmd {
    pub const CREATE: u32 = 1;
    pub const DESTROY: u32 = 2;
    pub const QUERY: u32 = 3;
}

pub mod qp_state {
    use crate::host::Field;
    pub const STATE: Field = Field::new(0, 3);
    pub const CUR_STATE: Field = Field::new(4, 3);
    pub const SQD_NOTIFY: Field = Field::new(8, 1);
    pub const SQ_DRAINED: Field = Field::new(9, 1);
}

pub mod qp_mtu_rd {
    use crate::host::Field;
    pub const PATH_MTU: Field = Field::new(0, 3);
    pub const MAX_RD_ATOMIC: Field = Field::new(8, 8);
    pub const MAX_DEST_RD_ATOMIC: Field = Field::new(16, 8);
}

pub mod qp_timers {
    use crate::host::Field;
    pub const TIMEOUT: Field = Field::new(0, 5);
    pub const RETRY_CNT: Field = Field::new(8, 3);
    pub const RNR_RETRY: Field = Field::new(12, 3);
    pub const MIN_RNR_TIMER: Field = Field::new(16, 5);
}

pub mod qp_av_path {
    use crate::host::Field;
    pub const SGID_INDEX: Field = Field::new(0, 8);
    pub const TRAFFIC_CLASS: Field = Field::new(8, 8);
    pub const HOP_LIMIT: Field = Field::new(16, 8);
    pub const DEFAULT_DSCP: Field = Field::new(24, 1);
}

pub mod qp_ring_cfg {
    use crate::host::Field;
    pub const LOG2_SQ_ENTRIES: Field = Field::new(0, 5);
    pub const LOG2_SQ_STRIDE: Field = Field::new(8, 4);
    pub const LOG2_RQ_ENTRIES: Field = Field::new(16, 5);
    pub const LOG2_RQ_STRIDE: Field = Field::new(24, 4);
    /// log2 of the QP's send window in PSNs: the requester starts a new message only while
    /// the PSNs sent and not acknowledged, this message's included, stay within `2^v`
    /// (a message longer than the window goes alone).
    pub const LOG2_SQ_PSN_WINDOW: Field = Field::new(28, 4);
}

pub mod qp_cqn {
    use crate::host::Field;
    pub const SEND_CQN: Field = Field::new(0, 16);
    pub const RECV_CQN: Field = Field::new(16, 16);
}

/// [`QP_SQ_INDEX`] and [`QP_RQ_INDEX`].
pub mod qp_index {
    use crate::host::Field;
    pub const PRODUCER: Field = Field::new(0, 16);
    pub const CONSUMER: Field = Field::new(16, 16);
}

pub mod qp_err_info {
    use crate::host::Field;
    pub const VENDOR_ERR: Field = Field::new(0, 8);
    pub const STATUS: Field = Field::new(8, 8);
}

pub mod mr_access {
    use crate::host::Field;
    pub const FLAGS: Field = Field::new(0, 8);
    pub const VALID: Field = Field::new(31, 1);
}

pub mod cq_cfg {
    use crate::host::Field;
    pub const LOG2_ENTRIES: Field = Field::new(0, 5);
    pub const VECTOR: Field = Field::new(8, 8);
    pub const VALID: Field = Field::new(31, 1);
}

pub mod cq_state {
    pub const ARMED: u32 = 1 << 0;
    pub const ARMED_SOLICITED: u32 = 1 << 1;
    pub const OVERFLOW: u32 = 1 << 2;
}

/// Doorbell value fields.
pub mod db {
    use crate::host::Field;
    /// SQ / RQ doorbell: the new producer index (free-running, modulo 2^16).
    pub const PRODUCER: Field = Field::new(0, 16);
    /// CQ doorbells: the consumer index (free-running, modulo 2^24).
    pub const CQ_CI: Field = Field::new(0, 24);
    /// CQ arm doorbell: the arm mode ([`crate::host::cq::ArmMode`]).
    pub const CQ_ARM: Field = Field::new(24, 2);
}

/// Result codes in the RESULT field of the command status registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CmdResult {
    Ok = 0,
    /// QPN / CQN / MR index out of range or reserved.
    BadIndex = 1,
    /// The requested QP state transition is not allowed from the current state.
    BadTransition = 2,
    /// The transition needs an attribute that QP_ATTR_MASK does not include.
    MissingAttr = 3,
    /// A staged value is out of range (MTU above the maximum, ring size too large, key index
    /// not matching MR_CMD_INDEX, misaligned base, unknown CQN, ...).
    BadValue = 4,
    /// The object is in use (a CQ still referenced by a QP that is not in RESET).
    InUse = 5,
    /// The command or an attribute in the mask is not implemented by this build.
    Unsupported = 6,
    /// CUR_STATE was given and does not match the QP's current state.
    CurStateMismatch = 7,
}

impl CmdResult {
    pub const fn from_u8(v: u8) -> Option<CmdResult> {
        Some(match v {
            0 => CmdResult::Ok,
            1 => CmdResult::BadIndex,
            2 => CmdResult::BadTransition,
            3 => CmdResult::MissingAttr,
            4 => CmdResult::BadValue,
            5 => CmdResult::InUse,
            6 => CmdResult::Unsupported,
            7 => CmdResult::CurStateMismatch,
            _ => return None,
        })
    }
}

/// Decoded command status register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CmdStatus {
    pub busy: bool,
    /// `Err(raw)` for a result code this version does not define.
    pub result: Result<CmdResult, u8>,
}

impl CmdStatus {
    pub const fn decode(reg: u32) -> CmdStatus {
        let raw = cmd_status::RESULT.get(reg) as u8;
        CmdStatus {
            busy: cmd_status::BUSY.bit(reg),
            result: match CmdResult::from_u8(raw) {
                Some(r) => Ok(r),
                None => Err(raw),
            },
        }
    }

    pub const fn encode(busy: bool, result: CmdResult) -> u32 {
        cmd_status::BUSY.place(busy as u32) | cmd_status::RESULT.place(result as u32)
    }
}

// ---------------------------------------------------------------------------------------------
// GID table and doorbell addressing.

/// Offset of GID table entry `n`'s data word `word` (0..4).
pub const fn gid_data(n: u32, word: u32) -> u32 {
    GID_DATA0 + n * GID_STRIDE + 4 * word
}

/// Offset of GID table entry `n`'s attribute word.
pub const fn gid_attr(n: u32) -> u32 {
    GID_ATTR + n * GID_STRIDE
}

/// Offset of QP `qpn`'s SQ doorbell.
pub const fn sq_doorbell(qpn: u32) -> u32 {
    DB_SQ + qpn * DB_QP_STRIDE
}

/// Offset of QP `qpn`'s RQ doorbell.
pub const fn rq_doorbell(qpn: u32) -> u32 {
    DB_RQ + qpn * DB_QP_STRIDE
}

/// Offset of CQ `cqn`'s consumer-index doorbell.
pub const fn cq_ci_doorbell(cqn: u32) -> u32 {
    DB_CQ_CI + cqn * DB_CQ_STRIDE
}

/// Offset of CQ `cqn`'s arm doorbell.
pub const fn cq_arm_doorbell(cqn: u32) -> u32 {
    DB_CQ_ARM + cqn * DB_CQ_STRIDE
}

/// The SQ doorbell write announcing producer index `pi` (free-running; sent modulo 2^16).
pub const fn sq_doorbell_write(qpn: u32, pi: u32) -> RegWrite {
    RegWrite::new(sq_doorbell(qpn), db::PRODUCER.place(pi))
}

/// The RQ doorbell write announcing producer index `pi`.
pub const fn rq_doorbell_write(qpn: u32, pi: u32) -> RegWrite {
    RegWrite::new(rq_doorbell(qpn), db::PRODUCER.place(pi))
}

/// How many QPs (or CQs) share one doorbell page of `page_size` bytes. The driver allocates
/// QPNs/CQNs to a process in whole groups of this size, so mapping the page gives the process
/// its own doorbells and nobody else's.
pub const fn doorbells_per_page(page_size: u32) -> u32 {
    page_size / DB_QP_STRIDE
}

/// BAR0 offset of the doorbell page holding QP `qpn`'s doorbells.
pub const fn qp_doorbell_page(qpn: u32, page_size: u32) -> u32 {
    sq_doorbell(qpn) & !(page_size - 1)
}

/// BAR0 offset of the doorbell page holding CQ `cqn`'s doorbells.
pub const fn cq_doorbell_page(cqn: u32, page_size: u32) -> u32 {
    cq_ci_doorbell(cqn) & !(page_size - 1)
}

/// What a write into a doorbell region addresses. The hardware's decoder: QPN or CQN is
/// `offset[18:3]`, `offset[2]` selects the word, `offset[19]` selects QP or CQ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Doorbell {
    Sq(u32),
    Rq(u32),
    CqCi(u32),
    CqArm(u32),
}

impl Doorbell {
    pub const fn offset(self) -> u32 {
        match self {
            Doorbell::Sq(q) => sq_doorbell(q),
            Doorbell::Rq(q) => rq_doorbell(q),
            Doorbell::CqCi(c) => cq_ci_doorbell(c),
            Doorbell::CqArm(c) => cq_arm_doorbell(c),
        }
    }

    /// Decode a BAR0 offset; `None` outside the doorbell regions or if not 4-byte aligned.
    pub const fn decode(offset: u32) -> Option<Doorbell> {
        if !offset.is_multiple_of(4) || offset < DB_QP_BASE || offset >= BAR0_SIZE {
            return None;
        }
        if offset < DB_CQ_BASE {
            let rel = offset - DB_QP_BASE;
            let qpn = rel / DB_QP_STRIDE;
            Some(if rel.is_multiple_of(DB_QP_STRIDE) {
                Doorbell::Sq(qpn)
            } else {
                Doorbell::Rq(qpn)
            })
        } else {
            let rel = offset - DB_CQ_BASE;
            let cqn = rel / DB_CQ_STRIDE;
            Some(if rel.is_multiple_of(DB_CQ_STRIDE) {
                Doorbell::CqCi(cqn)
            } else {
                Doorbell::CqArm(cqn)
            })
        }
    }
}
