# Reads "jobs policy µs-per-job" lines and writes a log-log SVG of time per job against jobs,
# one line per policy (scripts/bench_scale.sh; the README shows docs/scaling.svg).
{ n[NR] = $1; p[NR] = $2; u[NR] = $3; if (!($2 in seen)) { seen[$2] = 1; order[++np] = $2 } }
function lg(v) { return log(v) / log(10) }
END {
  W = 640; H = 400; L = 70; R = 150; T = 30; B = 55
  xmin = 1e9; xmax = -1e9; ymin = 1e9; ymax = -1e9
  for (i = 1; i <= NR; i++) {
    x = lg(n[i]); y = lg(u[i])
    if (x < xmin) xmin = x; if (x > xmax) xmax = x
    if (y < ymin) ymin = y; if (y > ymax) ymax = y
  }
  xmin = int(xmin); if (xmax > int(xmax)) xmax = int(xmax) + 1
  ymin = (ymin < 0 ? int(ymin) - 1 : int(ymin)); ymax = (ymax > int(ymax) ? int(ymax) + 1 : ymax)
  if (ymax <= ymin) ymax = ymin + 1
  pw = W - L - R; ph = H - T - B
  printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H
  printf "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H
  # Grid and ticks at 1, 2, 5 × powers of ten.
  for (e = ymin; e < ymax; e++) for (m = 1; m <= 5; m += (m == 1 ? 1 : 3)) {
    y = lg(m) + e; if (y < ymin || y > ymax) continue
    py = T + ph - (y - ymin) / (ymax - ymin) * ph
    printf "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, py, L + pw, py
    printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 6, py + 4, m * 10 ^ e
  }
  py = T; printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 6, py + 4, 10 ^ ymax
  for (e = xmin; e <= xmax; e++) {
    px = L + (e - xmin) / (xmax - xmin) * pw
    printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", px, T, px, T + ph
    printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">10<tspan dy=\"-6\" font-size=\"9\">%d</tspan></text>\n", px, T + ph + 18, e
  }
  printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", L, T, pw, ph
  printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">jobs (Lublin–Feitelson, 128 nodes)</text>\n", L + pw / 2, H - 12
  printf "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">µs per job, whole process</text>\n", T + ph / 2
  split("#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b", col, " ")
  for (k = 1; k <= np; k++) {
    pts = ""
    for (i = 1; i <= NR; i++) if (p[i] == order[k]) {
      px = L + (lg(n[i]) - xmin) / (xmax - xmin) * pw
      py = T + ph - (lg(u[i]) - ymin) / (ymax - ymin) * ph
      pts = pts sprintf("%.1f,%.1f ", px, py)
      printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", px, py, col[k]
    }
    printf "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", pts, col[k]
    ly = T + 10 + (k - 1) * 20
    printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>\n", L + pw + 14, ly, L + pw + 34, ly, col[k]
    printf "<text x=\"%d\" y=\"%d\">%s</text>\n", L + pw + 40, ly + 4, order[k]
  }
  print "</svg>"
}
