//! MAC Control pause frames (docs/PROTOCOL.md §12): IEEE 802.1Qbb priority flow control and legacy
//! 802.3x PAUSE. The view covers the MAC Control payload, i.e. the bytes after the EtherType
//! 0x8808:
//!
//! ```text
//! PFC:   Opcode 0x0101 | class-enable vector(2) | time[0..8] (8 x 2)     = 20 bytes
//! PAUSE: Opcode 0x0001 | time(2)                                         =  4 bytes
//! ```
//! then zero padding up to the 60-byte minimum frame. Times are in quanta of 512 bit times; a
//! time of 0 with the enable bit set means resume (XON) for that priority.

use super::{get_u16, put_u16, Error, Result};

/// Destination MAC of PFC and PAUSE frames (a reserved multicast address bridges do not
/// forward).
pub const DST_MAC: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
/// MAC Control opcode of 802.1Qbb PFC.
pub const OPCODE_PFC: u16 = 0x0101;
/// MAC Control opcode of 802.3x PAUSE.
pub const OPCODE_PAUSE: u16 = 0x0001;
/// MAC Control payload length of a PFC frame.
pub const PFC_LEN: usize = 20;
/// Bit times in one pause quantum (IEEE 802.1Qbb / 802.3 Annex 31B).
pub const QUANTUM_BIT_TIMES: u64 = 512;
/// MAC Control payload length of a PAUSE frame.
pub const PAUSE_LEN: usize = 4;

/// A view of a MAC Control payload (after the EtherType).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PfcPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> PfcPacket<T> {
    /// Wraps a buffer without checking its length; getters may then panic.
    pub const fn new_unchecked(buffer: T) -> Self {
        PfcPacket { buffer }
    }

    /// Wraps a buffer after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let packet = Self::new_unchecked(buffer);
        packet.check_len()?;
        Ok(packet)
    }

    /// Checks that the opcode is PFC or PAUSE and that its fields fit.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < 2 {
            return Err(Error::Truncated("MAC Control opcode"));
        }
        let needed = match self.opcode() {
            OPCODE_PFC => PFC_LEN,
            OPCODE_PAUSE => PAUSE_LEN,
            _ => {
                return Err(Error::Malformed(
                    "MAC Control opcode is neither PFC nor PAUSE",
                ))
            }
        };
        if len < needed {
            return Err(Error::Truncated("PFC/PAUSE fields"));
        }
        Ok(())
    }

    /// Gives the buffer back.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// MAC Control opcode.
    pub fn opcode(&self) -> u16 {
        get_u16(self.buffer.as_ref(), 0)
    }

    /// PFC class-enable vector: bit n enables priority n; bits 15:8 reserved.
    pub fn class_enable(&self) -> u16 {
        get_u16(self.buffer.as_ref(), 2)
    }

    /// PFC pause time of priority `prio` (0..8), in quanta.
    pub fn time(&self, prio: usize) -> u16 {
        get_u16(self.buffer.as_ref(), 4 + 2 * prio)
    }

    /// PAUSE pause time, in quanta (same bytes as the PFC class-enable vector).
    pub fn pause_time(&self) -> u16 {
        get_u16(self.buffer.as_ref(), 2)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> PfcPacket<T> {
    /// Sets the MAC Control opcode.
    pub fn set_opcode(&mut self, opcode: u16) {
        put_u16(self.buffer.as_mut(), 0, opcode);
    }

    /// Sets the PFC class-enable vector.
    pub fn set_class_enable(&mut self, vector: u16) {
        put_u16(self.buffer.as_mut(), 2, vector);
    }

    /// Sets the PFC pause time of priority `prio` (0..8).
    pub fn set_time(&mut self, prio: usize, quanta: u16) {
        put_u16(self.buffer.as_mut(), 4 + 2 * prio, quanta);
    }

    /// Sets the PAUSE pause time.
    pub fn set_pause_time(&mut self, quanta: u16) {
        put_u16(self.buffer.as_mut(), 2, quanta);
    }
}

/// A PFC or PAUSE frame body as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PfcRepr {
    /// 802.1Qbb per-priority pause.
    Pfc {
        /// Bit n enables priority n; the reserved bits 15:8 are carried as found.
        class_enable: u16,
        /// Pause time per priority, in quanta; meaningful where the enable bit is set.
        times: [u16; 8],
    },
    /// 802.3x PAUSE of the whole link.
    Pause {
        /// Pause time in quanta.
        time: u16,
    },
}

impl PfcRepr {
    /// A PFC frame pausing one priority for `quanta` (0 = resume it).
    pub const fn pause_priority(prio: u8, quanta: u16) -> PfcRepr {
        let mut times = [0u16; 8];
        times[(prio & 7) as usize] = quanta;
        PfcRepr::Pfc {
            class_enable: 1 << (prio & 7),
            times,
        }
    }

    /// Reads the body out of a view.
    pub fn parse<T: AsRef<[u8]>>(packet: &PfcPacket<T>) -> Result<PfcRepr> {
        packet.check_len()?;
        Ok(match packet.opcode() {
            OPCODE_PFC => PfcRepr::Pfc {
                class_enable: packet.class_enable(),
                times: core::array::from_fn(|prio| packet.time(prio)),
            },
            // check_len admitted only PFC and PAUSE.
            _ => PfcRepr::Pause {
                time: packet.pause_time(),
            },
        })
    }

    /// MAC Control opcode of this body.
    pub const fn opcode(&self) -> u16 {
        match self {
            PfcRepr::Pfc { .. } => OPCODE_PFC,
            PfcRepr::Pause { .. } => OPCODE_PAUSE,
        }
    }

    /// 20 for PFC, 4 for PAUSE (padding excluded).
    pub const fn buffer_len(&self) -> usize {
        match self {
            PfcRepr::Pfc { .. } => PFC_LEN,
            PfcRepr::Pause { .. } => PAUSE_LEN,
        }
    }

    /// The pause time this frame sets for priority `prio`, or `None` when it leaves the
    /// priority alone. PAUSE applies to every priority.
    pub const fn time_for(&self, prio: u8) -> Option<u16> {
        match self {
            PfcRepr::Pfc {
                class_enable,
                times,
            } => {
                let prio = (prio & 7) as usize;
                if *class_enable & (1 << prio) != 0 {
                    Some(times[prio])
                } else {
                    None
                }
            }
            PfcRepr::Pause { time } => Some(*time),
        }
    }

    /// Writes the body (without padding).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut PfcPacket<T>) {
        packet.set_opcode(self.opcode());
        match self {
            PfcRepr::Pfc {
                class_enable,
                times,
            } => {
                packet.set_class_enable(*class_enable);
                for (prio, &quanta) in times.iter().enumerate() {
                    packet.set_time(prio, quanta);
                }
            }
            PfcRepr::Pause { time } => packet.set_pause_time(*time),
        }
    }
}
