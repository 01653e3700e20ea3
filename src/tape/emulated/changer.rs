//! An emulated medium changer, a test double for what is built on
//! [`MediumChanger`]: slots, import/export slots and drives holding
//! cartridges with volume tags as a library stores them (32 characters,
//! space padded), one transport, and a log of every move. It answers
//! through the same decoding as the real changer (`element.rs`), and is
//! as strict as a library: a move from an empty element or to a full one
//! is refused, as `ch` refuses it (EBADE, EXFULL), and so is a move to or
//! from an element the changer lacks. An element can be put in exception
//! with an ASC/ASCQ, which the real `ch` path never reports.
//!
//! A drive element can be bound to an emulated drive (`tape::emulated`,
//! [`EmulatedChanger::bind`]): a move into it loads the cartridge's
//! contents into that drive (its records, capacity, write protection,
//! cleaning flag), and a move out takes them back. Like a strict real
//! library, and unlike mhvtl, which unloads by itself, a move out of a
//! drive that has not ejected its cartridge is refused (53/02, medium
//! removal prevented); a cleaning cartridge is the exception, which the
//! library unloads itself. A bound drive's element is accessible only
//! while its drive holds nothing loaded, as mhvtl reports it. Moves can
//! be slowed (`move_delay`) and made to fail (`failures`), as a robot
//! fails: hardware error, manual intervention required.
//!
//! A test keeps a [`Robot`], a shared handle, on the library while the
//! code under test drives it, and reads the log and the elements after.
//!
//! Compiled only for tests and with the `test-support` feature, like
//! `tape/emulated/`.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::base::sync::lock;
use crate::tape::changer::ChangerError;
use crate::tape::changer::MediumChanger;
use crate::tape::changer::{
    sense_words, volume_tag, Element, ElementAddress, ElementKind, Exception, MediumType, Params,
};
use crate::tape::emulated::{Cartridge, Shelf};

/// The bytes of a volume tag's characters.
const TAG_CHARS: usize = 32;

/// A cartridge in the emulated library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tape {
    /// The primary volume tag as the library keeps it; empty for none.
    pub volume_tag: Vec<u8>,
    /// The element it was last moved from.
    pub source: Option<ElementAddress>,
    /// The operator put it in through an import/export slot.
    pub import_export: bool,
    /// The kind the library reports, if it does.
    pub medium_type: Option<MediumType>,
    /// What is on it, for a drive bound to an emulated drive; a blank
    /// cartridge of 1 MiB when none was given.
    pub cartridge: Option<Cartridge>,
    /// While in a bound drive: its index among the drive's cartridges.
    loaded_as: Option<usize>,
}

impl Tape {
    /// A cartridge with barcode `barcode`, padded with spaces to 32
    /// characters and followed by the reserved bytes, as a library gives it.
    pub fn tagged(barcode: &str) -> Tape {
        let mut volume_tag = barcode.as_bytes().to_vec();
        volume_tag.resize(TAG_CHARS, b' ');
        volume_tag.extend_from_slice(&[0; 4]);
        Tape {
            volume_tag,
            ..Tape::unlabelled()
        }
    }

    /// The same cartridge holding `cartridge`; a cleaning one is reported
    /// as such by the library, as mhvtl reports it.
    pub fn holding(mut self, cartridge: Cartridge) -> Tape {
        if cartridge.cleaning {
            self.medium_type = Some(MediumType::Cleaning);
        }
        self.cartridge = Some(cartridge);
        self
    }

    /// The same cartridge, reported by the library as `medium_type`.
    pub fn of_type(mut self, medium_type: MediumType) -> Tape {
        self.medium_type = Some(medium_type);
        self
    }

    /// A cartridge without a barcode label.
    pub fn unlabelled() -> Tape {
        Tape {
            volume_tag: Vec::new(),
            source: None,
            import_export: false,
            medium_type: None,
            cartridge: None,
            loaded_as: None,
        }
    }
}

/// One element of the emulated library.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    pub tape: Option<Tape>,
    /// The element is in exception with this ASC/ASCQ.
    pub exception: Option<(u8, u8)>,
    /// A drive's device identifier, as READ ELEMENT STATUS with DVCID
    /// gives it.
    pub identifier: Option<String>,
}

impl Place {
    fn holding(tape: Option<Tape>) -> Place {
        Place {
            tape,
            exception: None,
            identifier: None,
        }
    }
}

/// An emulated tape library.
#[derive(Debug, Clone, Default)]
pub struct EmulatedChanger {
    pub transports: usize,
    pub slots: Vec<Place>,
    pub portals: Vec<Place>,
    pub drives: Vec<Place>,
    /// Every move done, as "slot 1 -> drive 0", in order.
    pub log: Vec<String>,
    /// Drive elements bound to emulated drives, by drive index.
    pub bound: HashMap<usize, Shelf>,
    /// How long each move takes.
    pub move_delay: Duration,
    /// Moves that will fail, each once, the first that matches.
    pub failures: Vec<MoveFailure>,
    /// A bound drive's element shows whether its drive holds a loaded
    /// cartridge (not accessible) or not; false: it is always shown
    /// accessible, as by a library that does not follow its drives.
    pub shows_drive_access: bool,
    /// The import/export door is open: the robot cannot reach the
    /// import/export slots (Access clear), and a move to or from one fails
    /// with NOT READY 3A/02, as mhvtl answers.
    pub door_open: bool,
}

/// A move that fails as a robot fails: after the delay, with nothing moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveFailure {
    /// Only a move from here (any if None).
    pub from: Option<ElementAddress>,
    /// Only a move to here (any if None).
    pub to: Option<ElementAddress>,
}

impl EmulatedChanger {
    /// A library with one transport, `drives` empty drives, `portals` empty
    /// import/export slots, and a slot for each of `slots`.
    pub fn new(drives: usize, slots: Vec<Option<Tape>>, portals: usize) -> EmulatedChanger {
        EmulatedChanger {
            transports: 1,
            slots: slots.into_iter().map(Place::holding).collect(),
            portals: vec![Place::default(); portals],
            drives: vec![Place::default(); drives],
            log: Vec::new(),
            bound: HashMap::new(),
            move_delay: Duration::ZERO,
            failures: Vec::new(),
            shows_drive_access: true,
            door_open: false,
        }
    }

    /// Binds drive element `drive` to the emulated drive whose library is
    /// `shelf`, with `identifier` as its DVCID.
    pub fn bind(&mut self, drive: usize, shelf: Shelf, identifier: &str) {
        self.drives[drive].identifier = Some(identifier.to_string());
        self.bound.insert(drive, shelf);
    }

    /// The cartridge with `barcode`, wherever it is: its contents as they
    /// are now (taken from the bound drive while it is in one).
    pub fn cartridge(&self, barcode: &str) -> Option<Cartridge> {
        fn tagged<'p>(p: &'p Place, barcode: &str) -> Option<&'p Tape> {
            let tape = p.tape.as_ref()?;
            (volume_tag(&tape.volume_tag).as_deref() == Some(barcode)).then_some(tape)
        }
        for (drive, place) in self.drives.iter().enumerate() {
            if let (Some(tape), Some(shelf)) = (tagged(place, barcode), self.bound.get(&drive)) {
                let lib = lock(shelf);
                return match tape.loaded_as {
                    Some(index) => lib.slots.get(index).cloned(),
                    None => tape.cartridge.clone(),
                };
            }
        }
        let mut places = self.slots.iter().chain(&self.portals).chain(&self.drives);
        places.find_map(|p| tagged(p, barcode))?.cartridge.clone()
    }

    /// The operator puts `tape` into import/export slot `portal`.
    pub fn hand_in(&mut self, portal: usize, mut tape: Tape) {
        tape.import_export = true;
        self.portals[portal].tape = Some(tape);
    }

    /// The elements of `kind`; a transport holds nothing here.
    fn places(&self, kind: ElementKind) -> &[Place] {
        match kind {
            ElementKind::Transport => &[],
            ElementKind::Slot => &self.slots,
            ElementKind::Portal => &self.portals,
            ElementKind::Drive => &self.drives,
        }
    }

    /// Element `address`, or the refusal naming it.
    pub fn place_mut(&mut self, address: ElementAddress) -> Result<&mut Place, ChangerError> {
        let places = match address.kind {
            ElementKind::Transport => None,
            ElementKind::Slot => Some(&mut self.slots),
            ElementKind::Portal => Some(&mut self.portals),
            ElementKind::Drive => Some(&mut self.drives),
        };
        places
            .and_then(|p| p.get_mut(address.index))
            .ok_or(ChangerError::NoSuchElement { address })
    }

    /// Element `address` as a library reports it.
    fn element(&self, address: ElementAddress, place: &Place) -> Element {
        let mut element = Element::from_status(address, 0);
        element.access = true;
        element.full = place.tape.is_some();
        element.exception = place
            .exception
            .map(|(asc, ascq)| Exception::from_sense(asc, ascq));
        element.identifier = place.identifier.clone();
        if address.kind == ElementKind::Portal {
            element.access = !self.door_open;
        }
        if let Some(shelf) = self
            .bound
            .get(&address.index)
            .filter(|_| address.kind == ElementKind::Drive)
        {
            let mut lib = lock(shelf);
            lib.settle();
            element.access = !lib.holds() || !self.shows_drive_access;
        }
        if let Some(tape) = &place.tape {
            element.medium_type = tape.medium_type;
            element.barcode = volume_tag(&tape.volume_tag);
            element.source = tape.source;
            element.import_export = tape.import_export;
        }
        element
    }
}

impl MediumChanger for EmulatedChanger {
    fn params(&mut self) -> Result<Params, ChangerError> {
        Ok(Params {
            transports: self.transports,
            slots: self.slots.len(),
            portals: self.portals.len(),
            drives: self.drives.len(),
        })
    }

    fn elements(&mut self, kind: ElementKind) -> Result<Vec<Element>, ChangerError> {
        if kind == ElementKind::Transport {
            let empty = |index| Element::from_status(ElementAddress { kind, index }, 0);
            return Ok((0..self.transports).map(empty).collect());
        }
        let places = self.places(kind);
        Ok(places
            .iter()
            .enumerate()
            .map(|(index, place)| self.element(ElementAddress { kind, index }, place))
            .collect())
    }

    fn move_medium(
        &mut self,
        from: ElementAddress,
        to: ElementAddress,
    ) -> Result<(), ChangerError> {
        std::thread::sleep(self.move_delay);
        self.try_move(from, to)?;
        self.log.push(format!("{from} -> {to}"));
        Ok(())
    }
}

impl EmulatedChanger {
    fn try_move(&mut self, from: ElementAddress, to: ElementAddress) -> Result<(), ChangerError> {
        let portal = from.kind == ElementKind::Portal || to.kind == ElementKind::Portal;
        if portal && self.door_open {
            let sense = crate::tape::scsi::sg_io::Sense {
                key: 0x02,
                asc: 0x3a,
                ascq: 0x02,
            };
            return Err(ChangerError::robot(format!("moving {from} to {to}"), sense));
        }
        if self.place_mut(from)?.tape.is_none() {
            return Err(ChangerError::SlotEmpty { from });
        }
        if self.place_mut(to)?.tape.is_some() {
            return Err(ChangerError::DestinationFull { to });
        }
        let fails =
            |f: &MoveFailure| f.from.is_none_or(|a| a == from) && f.to.is_none_or(|a| a == to);
        if let Some(at) = self.failures.iter().position(fails) {
            self.failures.remove(at);
            let why = sense_words(0x04, 0x03);
            return Err(ChangerError::io(
                format!("moving {from} to {to}"),
                io::Error::other(format!("hardware error: {why}")),
            ));
        }
        let mut tape = self.place_mut(from)?.tape.take().expect("checked full");
        if let Err(e) = self.unload_bound(from, &mut tape) {
            self.place_mut(from)?.tape = Some(tape);
            return Err(e);
        }
        if from.kind == ElementKind::Slot {
            tape.source = Some(from);
        }
        tape.import_export = false;
        if let (ElementKind::Drive, Some(shelf)) = (to.kind, self.bound.get(&to.index)) {
            let cartridge = tape
                .cartridge
                .take()
                .unwrap_or_else(|| Cartridge::blank(1 << 20, 200 << 10));
            let mut lib = lock(shelf);
            tape.loaded_as = Some(lib.insert(cartridge));
        }
        self.place_mut(to)?.tape = Some(tape);
        Ok(())
    }

    /// Takes `tape`'s contents back from the drive `from`, if it is a
    /// bound one; refused while the drive has not ejected it.
    fn unload_bound(&mut self, from: ElementAddress, tape: &mut Tape) -> Result<(), ChangerError> {
        let (ElementKind::Drive, Some(shelf), Some(index)) =
            (from.kind, self.bound.get(&from.index), tape.loaded_as)
        else {
            return Ok(());
        };
        let mut lib = lock(shelf);
        let cartridge = lib.take(index).map_err(|why| {
            ChangerError::io(format!("moving from {from}"), io::Error::other(why))
        })?;
        tape.cartridge = Some(cartridge);
        tape.loaded_as = None;
        Ok(())
    }
}

/// A shared handle on an emulated library: the code under test drives it
/// while the test keeps another handle to look at it.
pub type Robot = Arc<Mutex<EmulatedChanger>>;

impl MediumChanger for Robot {
    fn params(&mut self) -> Result<Params, ChangerError> {
        self.lock().unwrap().params()
    }

    fn elements(&mut self, kind: ElementKind) -> Result<Vec<Element>, ChangerError> {
        self.lock().unwrap().elements(kind)
    }

    fn move_medium(
        &mut self,
        from: ElementAddress,
        to: ElementAddress,
    ) -> Result<(), ChangerError> {
        self.lock().unwrap().move_medium(from, to)
    }
}
