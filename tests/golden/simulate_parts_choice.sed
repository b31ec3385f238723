# mask what depends on the event loop's internals and the machine: event
# counts, peak pending events, wall time (flows are derived by hand: kept)
s/^simulation: [0-9][0-9]* events (peak [0-9][0-9]* pending)/simulation: # events (peak # pending)/
s/wall [0-9][0-9]*\.[0-9][0-9]* s$/wall # s/
s/^  "events": [0-9][0-9]*,$/  "events": #,/
s/^  "peak_events": [0-9][0-9]*,$/  "peak_events": #,/
s/^  "wall_time_ns": .*$/  "wall_time_ns": #/
