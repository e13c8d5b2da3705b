//! ferroce-driver: the host driver (verbs-like API over a backend trait).
