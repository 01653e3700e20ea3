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
//! A test keeps a [`Robot`], a shared handle, on the library while the
//! code under test drives it, and reads the log and the elements after.
//!
//! Compiled only for tests and with the `test-support` feature, like
//! `tape/emulated/`.

use std::sync::{Arc, Mutex};

use super::element::{
    volume_tag, Element, ElementAddress, ElementKind, Exception, MediumType, Params,
};
use super::error::ChangerError;
use super::medium_changer::MediumChanger;

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
            source: None,
            import_export: false,
            medium_type: None,
        }
    }

    /// A cartridge without a barcode label.
    pub fn unlabelled() -> Tape {
        Tape {
            volume_tag: Vec::new(),
            source: None,
            import_export: false,
            medium_type: None,
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
        }
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
    fn element(address: ElementAddress, place: &Place) -> Element {
        let mut element = Element::from_status(address, 0);
        element.access = true;
        element.full = place.tape.is_some();
        element.exception = place
            .exception
            .map(|(asc, ascq)| Exception::from_sense(asc, ascq));
        element.identifier = place.identifier.clone();
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
            .map(|(index, place)| Self::element(ElementAddress { kind, index }, place))
            .collect())
    }

    fn move_medium(
        &mut self,
        from: ElementAddress,
        to: ElementAddress,
    ) -> Result<(), ChangerError> {
        if self.place_mut(from)?.tape.is_none() {
            return Err(ChangerError::SlotEmpty { from });
        }
        if self.place_mut(to)?.tape.is_some() {
            return Err(ChangerError::DestinationFull { to });
        }
        let mut tape = self.place_mut(from)?.tape.take().expect("checked full");
        if from.kind == ElementKind::Slot {
            tape.source = Some(from);
        }
        tape.import_export = false;
        self.place_mut(to)?.tape = Some(tape);
        self.log.push(format!("{from} -> {to}"));
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
