"""The pieces of benchmarks/bench.py (run that script; see benchmarks/README.md).

    words      the vocabulary of the generated data (URLs, dates, text)
    datasets   the input files, made once per size
    floors     the floor programs and the launcher, as source text
    running    a run of one side (child process, wall, CPU, peak RSS); Side, Scenario
    scenarios  which scenarios there are, and --only
    yardsticks other feed parsers as reference rows, when installed
    peers      the sitemap peers (usp, advertools, sitemap.js) beside sitemap-set and text-ascii
    results    the tables, the notes, the machine
    main       the command line

Standard library only, and it never imports feed2sitemap (bench_dask's child does).
"""
