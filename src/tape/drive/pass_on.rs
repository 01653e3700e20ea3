//! `pass_on!`: the `Drive` methods a wrapper (the health and cleaning
//! watches, logical block protection, encryption) hands unchanged to the
//! drive it wraps, written once here instead of once per wrapper.
//!
//! ```text
//! impl Drive for Watch {
//!     fn close(&mut self) -> io::Result<()> { ... }   // its own
//!     pass_on!(drive: write_record, read_record, op, status, ...);
//! }
//! ```
//!
//! The wrapper names every method it does not write itself: a method the
//! trait gives a default body and a wrapper forgot would silently answer
//! the default instead of the wrapped drive, which
//! `tests/layers/drive_wrappers.rs` refuses, reading both lists from the
//! source.

/// Writes, for each method named, a body that calls the same method of
/// `self.<field>` with the same arguments.
macro_rules! pass_on {
    ($field:ident: $($method:ident),+ $(,)?) => {
        $( $crate::tape::drive::pass_on::pass_on!(@one $field $method); )+
    };
    (@one $f:ident write_record) => {
        fn write_record(&mut self, record: &[u8]) -> std::io::Result<usize> {
            self.$f.write_record(record)
        }
    };
    (@one $f:ident write_record_in) => {
        fn write_record_in(&mut self, buf: &mut [u8], len: usize) -> std::io::Result<usize> {
            self.$f.write_record_in(buf, len)
        }
    };
    (@one $f:ident read_record) => {
        fn read_record(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.$f.read_record(buf)
        }
    };
    (@one $f:ident read_record_in) => {
        fn read_record_in(&mut self, buf: &mut [u8], len: usize) -> std::io::Result<usize> {
            self.$f.read_record_in(buf, len)
        }
    };
    (@one $f:ident op) => {
        fn op(&mut self, op: $crate::tape::drive::TapeOp) -> std::io::Result<()> {
            self.$f.op(op)
        }
    };
    (@one $f:ident status) => {
        fn status(&mut self) -> std::io::Result<$crate::tape::drive::DriveStatus> {
            self.$f.status()
        }
    };
    (@one $f:ident close) => {
        fn close(&mut self) -> std::io::Result<()> {
            self.$f.close()
        }
    };
    (@one $f:ident reopen) => {
        fn reopen(&mut self) -> std::io::Result<()> {
            self.$f.reopen()
        }
    };
    (@one $f:ident name) => {
        fn name(&self) -> &str {
            self.$f.name()
        }
    };
    (@one $f:ident transfer_limits) => {
        fn transfer_limits(&self) -> $crate::tape::drive::limits::TransferLimits {
            self.$f.transfer_limits()
        }
    };
    (@one $f:ident status_unopened) => {
        fn status_unopened(&mut self) -> std::io::Result<$crate::tape::drive::DriveStatus> {
            self.$f.status_unopened()
        }
    };
    (@one $f:ident eject_unopened) => {
        fn eject_unopened(&mut self) -> std::io::Result<()> {
            self.$f.eject_unopened()
        }
    };
    (@one $f:ident tape_alerts) => {
        fn tape_alerts(
            &mut self,
        ) -> std::io::Result<$crate::tape::scsi::pages::tape_alert::TapeAlerts> {
            self.$f.tape_alerts()
        }
    };
    (@one $f:ident scsi_command) => {
        fn scsi_command(
            &mut self,
            cdb: &[u8],
            data: $crate::tape::scsi::sg_io::Data<'_>,
            timeout: std::time::Duration,
        ) -> Result<usize, $crate::tape::scsi::sg_io::ScsiError> {
            self.$f.scsi_command(cdb, data, timeout)
        }
    };
    (@one $f:ident cartridge_serial) => {
        fn cartridge_serial(&self) -> Option<String> {
            self.$f.cartridge_serial()
        }
    };
    (@one $f:ident position) => {
        fn position(&mut self) -> std::io::Result<u64> {
            self.$f.position()
        }
    };
    (@one $f:ident ready_poll_interval) => {
        fn ready_poll_interval(&self) -> std::time::Duration {
            self.$f.ready_poll_interval()
        }
    };
    (@one $f:ident protection) => {
        fn protection(&self) -> $crate::tape::drive::Protection {
            self.$f.protection()
        }
    };
    (@one $f:ident drop_protection) => {
        fn drop_protection(&mut self, why: String) -> std::io::Result<()> {
            self.$f.drop_protection(why)
        }
    };
    (@one $f:ident cleaned) => {
        fn cleaned(&mut self) {
            self.$f.cleaned()
        }
    };
}

pub(crate) use pass_on;
