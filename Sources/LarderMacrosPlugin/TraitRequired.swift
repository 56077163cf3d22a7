// This target's dependencies come with the package trait `Extras` (see Package.swift). Every other
// file of the target is inside `#if Extras`, so that a build without the trait stops here, with
// this message, instead of at the first import of a module it does not have.
#if !Extras
#error("LarderMacros needs Larder's package trait \"Extras\": depend with .package(url: …, from: …, traits: [\"Extras\"]); in Larder's own checkout, build with --enable-all-traits (or --traits Extras)")
#endif
