//! The catalog: every member of an archive that passed through tapebuf
//! (`archive::Member`), in stream order, in a compact file of tapebuf's
//! own that lists a million members in well under a second, written
//! beside the manifest (and later onto the tape after the data), so that
//! one file can be found and restored without reading the whole backup.
