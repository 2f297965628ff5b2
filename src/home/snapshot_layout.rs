//! The layout of `snapshot.bin` (see `snapshot_cache` for the whole format): its constants,
//! sections and node flags, shared by the writer, the in-place reader and the identity check.

/// The file's name in the home.
pub const FILE: &str = "snapshot.bin";

pub(crate) const MAGIC: &[u8; 8] = b"FSSNAP\r\n";
/// Bump when the payload's layout or the meaning of what is cached changes.
pub(crate) const LAYOUT: u32 = 3;
/// log2 of the body's block size: each block has its own checksum in the table.
pub(crate) const BLOCK_LOG: u32 = 12;
/// The body's sections, in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    Parent,
    Flags,
    Shares,
    RawUsage,
    PbsId,
    Line,
    Kids,
    NameEnd,
    Names,
    Users,
    Accounts,
    PbsUsage,
    ChildShares,
    Unmatched,
}
/// How many sections the body has.
pub(crate) const SECTIONS: usize = 14;
/// Where the section table starts in the header.
pub(crate) const TABLE_AT: usize = 8 + 4 + 4 + 8 + 32 + 8 + 8 + 3 * 8;
/// Where the text files' identity (`snapshot_ident`) starts in the header, then whether it
/// is settled (u8, then 7 bytes of 0).
pub(crate) const IDENT_AT: usize = TABLE_AT + SECTIONS * 16;
/// Where the settled flag sits in the header.
pub(crate) const SETTLED_AT: usize = IDENT_AT + 32;
/// The header's length (the block table and the body follow).
pub const HEADER: usize = SETTLED_AT + 8 + 32 + 32;

/// Node flags.
pub(crate) const F_USER: u8 = 1;
pub(crate) const F_USAGE_GIVEN: u8 = 2;
pub(crate) const F_PARENT_SHARES: u8 = 4;
pub(crate) const F_ID: u8 = 8;
pub(crate) const F_LINE: u8 = 16;

/// What the snapshot is keyed by.
pub type Key = [u8; 32];
