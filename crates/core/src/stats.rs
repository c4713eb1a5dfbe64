//! Statistics over runs: percentiles with a stated method, tails, fits.
