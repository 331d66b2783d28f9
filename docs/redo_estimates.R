# Redo a survey's estimates from its exported reports alone, in R.
#
# What this is. Every answer in the survey was randomized in the respondent's own browser
# before it was sent (a coin, so to speak, decided whether to report the true answer or a
# random one, with known probabilities). No single report can be trusted, but the known
# probabilities let us estimate the true share of each answer among all respondents. This
# script redoes every estimate and interval shown on the survey's results page, from the
# randomized reports and the description of how they were randomized, with base R and the
# jsonlite package only.
#
# How to run it. Download, from the survey's results page, into one folder: this script
# (survey-N-estimates.R), the randomized reports (survey-N-reports.csv) and what their
# columns mean (survey-N-metadata.json). Install R and jsonlite (Debian and Ubuntu:
# sudo apt-get install r-base-core r-cran-jsonlite; elsewhere, in R:
# install.packages("jsonlite")). Then, in that folder, run
#
#     Rscript survey-N-estimates.R
#
# It prints every question's estimates and writes survey-N-estimates-redone-R.csv: one row
# per answer with every figure of the results page and its estimates file, under the
# estimates file's column names (FIGURES below; the Python script that the results page also
# offers writes the same): the answer's share with its 95% interval and the other
# estimates; the mean score of a rating scale, the mean number of options ticked of a
# check-all question and the mean of a number question, with their 95% intervals; for a
# question some did not answer ("No answer", "Not asked"), the share who answered and each
# answer's share among them (for a question asked only under some answer of another, from
# the two questions' reports together, as the results page does); for a validation anchor,
# its test. docs/ldp.md in the site's source says how each number is made; the functions
# below follow it step by step.

library(jsonlite)

PREFIX <- "survey-0"  # the names of this survey's files (set in the copy the page hands out)

# Every figure of an answer's row, named as in the results page's estimates file (and as the
# Python script the page also offers writes them): the answer's share (headline, 95%
# interval, unbiased with its standard error and Wald interval, maximum likelihood,
# Norm-Sub), the question's mean with its interval, unclipped value and standard error, the
# share who answered, the answer's share among them with its interval, and a validation
# anchor's test with the share of careless respondents.
FIGURES <- c("estimate", "ci_low", "ci_high", "unbiased", "std_error", "unbiased_ci_low",
             "unbiased_ci_high", "mle", "consistent", "mean", "mean_ci_low", "mean_ci_high",
             "mean_unbiased", "mean_std_error", "answered", "among_estimate", "among_ci_low",
             "among_ci_high", "anchor_p_value", "careless", "careless_ci_low",
             "careless_ci_high")
COLUMNS <- c("question", "question_text", "answer_index", "answer", "n", FIGURES)

CONFIDENCE <- 0.95
ALPHA <- 1 - CONFIDENCE
EXACT_BELOW_VARIANCE <- 100  # exact binomial p-values where n lam (1 - lam) is at most this

clip <- function(x, low, high) pmin(pmax(x, low), high)


# ---- How a question's reports were randomized -------------------------------------------
#
# A report "supports" answer c when it names c (yes/no, GRR) or has its bit c set (unary
# encodings SUE and OUE). Answer c is supported with probability a[c] by respondents whose
# true answer is c, and b[c] by everyone else; a_bar and b_bar are 1 - a and 1 - b, written
# out so that a probability near 1 keeps its precision in its complement.

randomization <- function(spec) {
  name <- spec$mechanism
  k <- spec$k
  if (name == "rr") {  # Warner's randomized response: the truth with probability p = q
    keep <- 1 / (1 + exp(-spec$epsilon)); flip <- 1 / (1 + exp(spec$epsilon))
    p <- q <- keep; p_bar <- q_bar <- flip
  } else if (name == "forced") {  # forced response: alpha truthful, else "yes" with beta
    p <- spec$alpha + (1 - spec$alpha) * spec$beta; q <- 1 - (1 - spec$alpha) * spec$beta
    p_bar <- (1 - spec$alpha) * (1 - spec$beta); q_bar <- (1 - spec$alpha) * spec$beta
  } else if (name == "pq") {  # keep a true "yes" with p, a true "no" with q
    p <- spec$p; q <- spec$q; p_bar <- 1 - p; q_bar <- 1 - q
  } else if (name == "grr") {  # the true answer with p, each other one with q
    denominator <- exp(spec$epsilon) + k - 1
    p <- exp(spec$epsilon) / denominator; q <- 1 / denominator
    p_bar <- (k - 1) / denominator; q_bar <- (exp(spec$epsilon) + k - 2) / denominator
  } else if (name == "sue") {  # every answer's bit kept with p, flipped otherwise
    p <- 1 / (1 + exp(-spec$epsilon / 2)); q <- 1 / (1 + exp(spec$epsilon / 2))
    p_bar <- q; q_bar <- p
  } else if (name == "oue") {  # the true answer's bit set with 1/2, the others' with q
    p <- 0.5; q <- 1 / (exp(spec$epsilon) + 1); p_bar <- 0.5; q_bar <- 1 / (1 + exp(-spec$epsilon))
  } else {
    stop("unknown mechanism ", name)
  }
  if (spec$encoding == "bit") {  # answer 0 is "no", 1 is "yes"
    list(k = 2, unary = FALSE, a = c(q, p), b = c(p_bar, q_bar), a_bar = c(q_bar, p_bar),
         b_bar = c(p, q))
  } else {
    list(k = k, unary = spec$encoding == "unary", a = rep(p, k), b = rep(q, k),
         a_bar = rep(p_bar, k), b_bar = rep(q_bar, k))
  }
}

# The k x k matrix S[c, i] = P(a report supports c | true answer i).
support_matrix <- function(m) {
  S <- matrix(m$b, m$k, m$k)  # row c holds b[c] ...
  diag(S) <- m$a              # ... but a[c] on the diagonal
  S
}


# ---- Unbiased estimates and their standard errors -----------------------------------------
#
# E[C_c] = n (a_c f_c + b_c (1 - f_c)) for a true share f_c, whatever the other answers, so
# f_c = (C_c / n - b_c) / (a_c - b_c) is exactly unbiased (it can leave [0, 1]).

unbiased <- function(m, counts, n) (counts / n - m$b) / (m$a - m$b)

std_errors <- function(m, counts, n) {
  lam <- counts / n
  sqrt(lam * (1 - lam) / n) / (m$a - m$b)
}


# ---- Maximum-likelihood shares, and the headline pooled from them ------------------------
#
# The shares that make the reports likeliest, non-negative and summing to 1. The headline
# keeps them for the leaders and pools the other answers (see headline() below).

# Yes/no and GRR (each report names one answer): closed form. f_c = max(C_c t - b_c / s_c, 0)
# with s_c = a_c - b_c and t such that the shares sum to 1.
mle_one_choice <- function(counts, b, slope) {
  beta <- b / slope
  tau <- ifelse(counts > 0, beta / counts, Inf)
  by_tau <- order(tau)  # the answers kept are those with the smallest tau
  total_c <- cumsum(counts[by_tau])
  total_beta <- cumsum(beta[by_tau])
  t <- (1 + total_beta) / total_c
  kept <- max(sum(t > tau[by_tau]), 1)
  f <- clip(counts * t[kept] - beta, 0, 1)
  f / sum(f)
}

# Unary encodings (every bit seen: C_c reports with bit c set, D_c = n - C_c without): the
# maximiser of sum_c C_c ln lam_c + D_c ln(1 - lam_c) on the simplex. For a multiplier mu,
# each f_c(mu) maximises one term less mu f_c (a quadratic's root), and mu is the one that
# makes the shares sum to 1, found by bisection (the sum falls as mu grows).
mle_every_bit <- function(m, counts, n) {
  c <- counts; d <- n - counts
  slope <- m$a - m$b
  shares_at <- function(mu) {
    q <- mu / slope
    s <- q + c + d
    root <- sqrt(s * s - 4 * q * c)
    lam <- ifelse(s > 0, 2 * c / (s + root), (s - root) / (2 * q))
    lam <- ifelse(c + d > 0, lam, 0)
    clip((lam - m$b) / slope, 0, 1)
  }
  low <- min(slope * (c / m$a - d / m$a_bar))
  high <- max(slope * (c / m$b - d / m$b_bar))
  for (step in 1:300) {
    mu <- (low + high) / 2
    if (mu <= low || mu >= high) break  # the bracket cannot shrink any more
    if (sum(shares_at(mu)) > 1) low <- mu else high <- mu
  }
  f <- shares_at((low + high) / 2)
  f / sum(f)
}

mle <- function(m, counts, n) {
  if (m$unary) mle_every_bit(m, counts, n) else mle_one_choice(counts, m$b, m$a - m$b)
}

# The headline: the leaders (maximum-likelihood share x_c above 1.75 standard errors of an
# empty answer's unbiased share, the noise floor) keep x_c; the other r answers, when
# r >= 4, are pulled towards their mean m by the positive-part James-Stein factor
# B = max(0, 1 - (r - 3) V / S): S is the spread of their unbiased shares around their
# mean, V the mean variance of those shares (computed as if the truth were x). Each
# becomes m + B (x_c - m): the total and the range [0, 1] are kept. Fewer than 4 answers,
# or fewer than 4 besides the leaders: x.
headline_shares <- function(m, counts, n, x) {
  k <- length(x)
  if (k < 4) return(x)
  slope <- m$a - m$b
  floor <- m$b * (1 - m$b) / (n * slope^2)  # variance of an empty answer's unbiased share
  lam <- m$b + slope * x
  variance <- lam * (1 - lam) / (n * slope^2)
  rest <- !(x > 1.75 * sqrt(floor))
  r <- sum(rest)
  if (r < 4) return(x)
  f <- unbiased(m, counts, n)[rest]
  spread <- sum((f - mean(f))^2)
  factor <- if (spread > 0) clip(1 - (r - 3) * mean(variance[rest]) / spread, 0, 1) else 0
  x[rest] <- clip(mean(x[rest]) + factor * (x[rest] - mean(x[rest])), 0, 1)
  x
}


# ---- The 95% intervals (Feldman-Cousins) ---------------------------------------------------
#
# Each answer's interval comes from its own support count y of n reports, Binomial(n, lam)
# with lam = b + (a - b) f and f in [0, 1]. A share f is accepted when the likelihood-ratio
# test accepts y: P(R(Y) <= R(y)) > alpha, with R(t) = L_t(lam) / L_t(lam_hat(t)) and
# lam_hat(t) = clip(t / n, b, a). That probability is an exact binomial sum where
# n lam (1 - lam) <= 100, and its Gaussian limit above. The interval is the smallest range
# holding every accepted f. Its upper end is searched from the maximum-likelihood f upwards;
# its lower end is the upper end of the other reports' count, with f read as 1 - f.

# lam and 1 - lam at share f, each written from the nearer end so that neither loses precision.
rates <- function(f, e) {
  near_a <- f > 0.5
  list(lam = ifelse(near_a, e$a - e$slope * (1 - f), e$b + e$slope * f),
       bar = ifelse(near_a, e$a_bar + e$slope * (1 - f), e$b_bar - e$slope * f))
}

# y ln lam + (n - y) ln(1 - lam), with 0 ln 0 = 0.
log_likelihood <- function(y, n, lam, bar) {
  ifelse(y > 0, y * log(lam), 0) + ifelse(y < n, (n - y) * log(bar), 0)
}

# ln L_t(lam_hat(t)): the log-likelihood of count t at its own best share in [0, 1].
best_log_likelihood <- function(t, n, e) {
  r <- rates(clip((t / n - e$b) / e$slope, 0, 1), e)
  log_likelihood(t, n, r$lam, r$bar)
}

# P(Y <= y) + P(Y >= h) for Y ~ Binomial(n, lam), from the other reports' count when lam > 1/2.
binomial_tails <- function(y, h, n, lam, bar) {
  ifelse(lam > 0.5,
         pbinom(n - y - 1, n, bar, lower.tail = FALSE) + pbinom(n - h, n, bar),
         pbinom(y, n, lam) + pbinom(h - 1, n, lam, lower.tail = FALSE))
}

# The Gaussian limit of the p-value: Y ~ N(theta, 1) with theta = (lam - b) / sd restricted to
# [0, width], width = (a - b) / sd, and -2 ln R(y) as the statistic.
gaussian_p_value <- function(f, n, e, y, best_y) {
  r <- rates(f, e)
  statistic <- max(-2 * (log_likelihood(y, n, r$lam, r$bar) - best_y), 0)
  sd <- sqrt(r$lam * r$bar / n)
  theta <- e$slope * f / sd
  width <- e$slope / sd
  root <- sqrt(statistic)
  upper <- if (theta + root <= width) theta + root
           else if (width > theta) (statistic / (width - theta) + width + theta) / 2
           else Inf
  lower <- if (theta - root >= 0) theta - root
           else if (theta > 0) (theta * theta - statistic) / (2 * theta)
           else -Inf
  pnorm(lower - theta) + pnorm(theta - upper)
}

# The upper end of the interval of count y (e: a, b, a_bar, b_bar, slope of one answer).
upper_end <- function(y, n, e, alpha) {
  best_y <- best_log_likelihood(y, n, e)
  hat <- clip((y / n - e$b) / e$slope, 0, 1)
  # Above the maximum-likelihood share, the counts t <= y are always at least as extreme as
  # y, and a count t > y is until logit(lam) passes chord[t]; the p-value is then
  # P(Y <= y) + P(Y >= h), h the first count t > y still in, and drops where one leaves.
  t <- if (y < n) (y + 1):n else numeric(0)
  gap <- t - y
  chord <- (best_log_likelihood(t, n, e) - best_y) / gap
  lam <- plogis(chord)
  observed <- log_likelihood(y, n, lam, 1 - lam) - best_y
  chord <- chord + 1e-9 * (1 + abs(observed)) / gap  # a tie counts as not more extreme
  lam <- plogis(chord); bar <- plogis(-chord)
  where <- ifelse(lam > 0.5, 1 - (e$a - lam) / e$slope, (lam - e$b) / e$slope)
  # Counts so far above every possible rate that they never matter stay out.
  visible <- t <= n * e$a + 10 * sqrt(max(n * e$a * e$a_bar, 1)) + 20
  chord[!visible] <- Inf
  jump <- visible & where > hat & where < 1 & n * lam * bar <= EXACT_BELOW_VARIANCE
  left <- rep(0, length(t))  # the p-value just before each jump
  left[jump] <- binomial_tails(y, t[jump], n, lam[jump], bar[jump])
  breaks <- where[jump]
  last <- c(where[jump][left[jump] > alpha], -Inf)
  piece_at <- function(f) {  # whether the p-value is exact at f, and its h there
    r <- rates(f, e)
    gone <- sum(chord <= log(r$lam) - log(r$bar))
    list(exact = n * r$lam * r$bar <= EXACT_BELOW_VARIANCE,
         h = if (gone < length(t)) t[gone + 1] else n + 1)
  }
  p_value <- function(f, piece) {
    if (!piece$exact) return(gaussian_p_value(f, n, e, y, best_y))
    r <- rates(f, e)
    binomial_tails(y, piece$h, n, r$lam, r$bar)
  }
  # Where n lam (1 - lam) crosses 100 the p-value switches between exact and Gaussian.
  if (n > 4 * EXACT_BELOW_VARIANCE) {
    root <- sqrt(1 - 4 * EXACT_BELOW_VARIANCE / n)
    for (rate in c((1 - root) / 2, (1 + root) / 2)) {
      f <- if (rate > 0.5) 1 - (e$a - rate) / e$slope else (rate - e$b) / e$slope
      if (!(f > hat && f < 1)) next
      breaks <- c(breaks, f)
      r <- rates(f, e)
      if (log_likelihood(y, n, r$lam, r$bar) - best_y + log(2 * (1 + 1e-6)) > log(alpha)) {
        piece <- list(exact = rate < 0.5, h = piece_at(f)$h)  # the piece just below f
        if (p_value(f, piece) > alpha) last <- c(last, f)
      }
    }
  }
  # Beyond the last break point where the p-value still exceeds alpha, nothing is accepted
  # past the next break; within that piece the p-value crosses alpha at most once.
  start <- max(hat, last)
  stop <- min(c(breaks[breaks > start], 1))
  piece <- piece_at((start + stop) / 2)
  if (!(p_value(start, piece) > alpha)) return(start)
  if (p_value(stop, piece) > alpha) return(stop)
  low <- start; high <- stop
  while (high - low > 1e-13) {
    middle <- (low + high) / 2
    if (middle <= low || middle >= high) break
    if (p_value(middle, piece) > alpha) low <- middle else high <- middle
  }
  low
}

intervals <- function(m, counts, n, alpha = ALPHA) {
  low <- high <- numeric(m$k)
  for (c in seq_len(m$k)) {
    up <- list(a = m$a[c], b = m$b[c], a_bar = m$a_bar[c], b_bar = m$b_bar[c])
    up$slope <- up$a - up$b
    # The other reports' rate is 1 - lam = (1 - b) - (a - b) f: the same form in 1 - f.
    down <- list(a = m$b_bar[c], b = m$a_bar[c], a_bar = m$b[c], b_bar = m$a[c])
    down$slope <- down$a - down$b
    high[c] <- upper_end(counts[c], n, up, alpha)
    low[c] <- 1 - upper_end(n - counts[c], n, down, alpha)
  }
  list(low = low, high = high)
}

# Norm-Sub: the nearest shares to v that are not negative and add up to 1.
project_simplex <- function(v) {
  u <- sort(v, decreasing = TRUE)
  cumulative <- cumsum(u) - 1
  rho <- max(which(u - cumulative / seq_along(u) > 0))
  pmax(v - cumulative[rho] / rho, 0)
}

# Everything the results page shows for one answer of each category.
estimate <- function(m, counts, n) {
  fitted <- mle(m, counts, n)
  headline <- headline_shares(m, counts, n, fitted)
  found <- intervals(m, counts, n)
  f <- unbiased(m, counts, n)
  list(headline = headline,
       ci_low = pmin(found$low, headline),  # the interval always holds the headline
       ci_high = pmax(found$high, headline),
       unbiased = f,
       std_error = std_errors(m, counts, n),
       mle = fitted,
       consistent = project_simplex(f))
}


# ---- Rating scales: the mean score ---------------------------------------------------------
#
# The unbiased mean score sum_c s_c f_c (points s = 1..k) is the average of one value per
# report; its interval is Student's t from that value's variance, clipped to [1, k].

mean_score <- function(m, counts, n) {
  k <- m$k
  points <- seq_len(k)
  S <- support_matrix(m)
  u <- points / (m$a - m$b)
  f <- unbiased(m, counts, n)
  # Weights of the reports' law: the unbiased shares for one-answer reports, the
  # maximum-likelihood shares for unary ones (whose bits do not show which came together).
  weights <- if (m$unary) mle(m, counts, n) else f
  uS <- as.vector(u %*% S)
  noise <- if (m$unary) S - S * S else S
  second_moment <- (if (m$unary) uS * uS else 0) + as.vector((u * u) %*% noise)
  first <- sum(weights * uS)
  second <- sum(weights * second_moment)
  variance <- max(second - first^2, 0) * (if (n > 1) n / (n - 1) else Inf)
  value <- sum(points * f)
  std_error <- sqrt(variance / n)
  half <- if (n > 1) qt(1 - ALPHA / 2, n - 1) * std_error else Inf
  list(estimate = clip(value, 1, k), ci_low = clip(value - half, 1, k),
       ci_high = clip(value + half, 1, k), unbiased = value, std_error = std_error)
}


# ---- Extra answers: shares and means among those who answered --------------------------------
#
# A question respondents may decline ("No answer") or that only some are asked ("Not asked")
# has those as its last answers, randomized like the others. Among those who answered, answer
# j's share is the ratio pi_j / D, D the share of the question's own answers, and a rating
# scale's mean score a ratio too. The headline divides maximum-likelihood shares; the 95%
# interval is Fieller's: every ratio t in [0, 1] that a test of N - t D = 0 accepts,
#     n (N - t D)^2 <= z^2 V(t),
# with V(t) the variance of N - t D, a polynomial in t of degree 3 at most.

moment <- function(m, S, x, y) {  # E[(x . e)(y . e) | true answer i], for each i
  if (m$unary) as.vector(x %*% S) * as.vector(y %*% S) + as.vector((x * y) %*% (S - S * S))
  else as.vector((x * y) %*% S)
}

# Near 0 or 1 the test orders the estimates as Feldman and Cousins do for a normal mean
# bounded below (docs/ldp.md, "Estimates near 0 or 1"): for a mean `gap` standard deviations
# above its bound, the residual is accepted within [a, b], b solving
# pnorm(b) - pnorm(-(gap^2 + b^2) / (2 gap)) = level and a = -(gap^2 + b^2) / (2 gap);
# from gap = z on, [-z, z]. b is tabulated on 2,049 points of [0, z] and interpolated.
bounded_table <- function(z) {
  level <- pnorm(z) - pnorm(-z)
  mu <- seq(0, z, length.out = 2049)
  inner <- mu[-1]
  low <- rep(0, length(inner))
  high <- rep(z, length(inner))
  for (i in 1:60) {
    d <- (low + high) / 2
    covered <- pnorm(d) - pnorm(-(inner^2 + d^2) / (2 * inner)) >= level
    low <- ifelse(covered, low, d)
    high <- ifelse(covered, d, high)
  }
  list(mu = mu, b = c(qnorm(level), high))
}
tables <- new.env()
accepted_limits <- function(gap, z) {
  key <- format(z, digits = 17)
  if (is.null(tables[[key]])) tables[[key]] <- bounded_table(z)
  table <- tables[[key]]
  inside <- gap < z
  high <- ifelse(inside, approx(table$mu, table$b, pmin(gap, z))$y, z)
  low <- ifelse(inside, -(gap^2 + high^2) / (2 * gap), -z)
  list(low = ifelse(gap > 0, low, -Inf), high = high)
}

# Every t in [0, 1] accepted: the residual estimate - t scale, in standard deviations
# sqrt(V(t) / n), within the limits for the nearer bound (a mean t scale above 0, or
# (1 - t) scale below scale); where V(t) <= 0 only a residual of 0. The accepted points of a
# grid of 257 and of the estimate itself, each end then refined by 40 halvings towards its
# rejected neighbour. variance: V(t)'s coefficients c0 + c1 t + c2 t^2 + c3 t^3. NaN when
# nothing is accepted.
score_interval <- function(estimate, scale, variance, n, z) {
  if (scale <= 0) return(c(0, 1))  # the denominator is not estimated above 0
  if (variance[1] <= 0) estimate <- max(estimate, 0)  # nothing randomized: cannot be below 0
  if (sum(variance) <= 0) estimate <- min(estimate, scale)
  rejected <- function(t) {
    spread <- variance[1] + t * (variance[2] + t * (variance[3] + t * variance[4]))
    residual <- estimate - t * scale
    sd <- sqrt(pmax(spread, 0) / n)
    above <- t * scale / sd
    below <- (1 - t) * scale / sd
    limits <- accepted_limits(pmin(above, below), z)
    nearer_low <- above <= below
    low <- ifelse(nearer_low, limits$low, -limits$high)
    high <- ifelse(nearer_low, limits$high, -limits$low)
    ifelse(spread > 0, residual < low * sd | residual > high * sd, residual != 0)
  }
  grid <- seq(0, 1, length.out = 257)
  centre <- clip(estimate / scale, 0, 1)
  accepted <- grid[!rejected(grid)]
  low <- min(c(accepted, if (!rejected(centre)) centre, Inf))
  high <- max(c(accepted, if (!rejected(centre)) centre, -Inf))
  if (!is.finite(low)) return(c(NaN, NaN))
  refine <- function(inside, outside) {
    for (i in 1:40) {
      middle <- (inside + outside) / 2
      if (rejected(middle)) outside <- middle else inside <- middle
    }
    inside
  }
  below <- grid[clip(ceiling(low * 256) - 1, 0, 256) + 1]
  above <- grid[clip(floor(high * 256) + 1, 0, 256) + 1]
  c(if (low > 0) refine(low, below) else 0, if (high < 1) refine(high, above) else 1)
}

widen <- function(interval, headline) {  # the interval, widened to hold the headline
  if (is.na(headline)) return(interval)
  if (is.na(interval[1])) return(c(headline, headline))
  c(min(interval[1], headline), max(interval[2], headline))
}

# A mean among those who answered, on its range from `start` over `span`, from the ratio's
# headline and interval on [0, 1], and the ratio of the unbiased estimates with the delta
# method's standard error sqrt(V(ratio) / n) / D.
ratio_mean <- function(span, start, headline, interval, numerator, total, variance, n) {
  ratio <- if (total > 0) numerator / total else NaN
  at_ratio <- sum(variance[1:3] * c(1, ratio, ratio * ratio))
  list(estimate = start + span * headline, ci_low = start + span * interval[1],
       ci_high = start + span * interval[2], unbiased = start + span * ratio,
       std_error = if (total > 0) span * sqrt(max(at_ratio, 0) / n) / total else NaN)
}

# The shares of the first `answers` answers among those who gave one of them, and with
# `scored` their mean score (points 1..answers).
among_answered <- function(m, counts, n, answers, scored) {
  k <- m$k
  own <- seq_len(k) <= answers
  S <- support_matrix(m)
  slope <- m$a - m$b
  f <- unbiased(m, counts, n)
  fitted <- mle(m, counts, n)
  z <- qnorm(1 - ALPHA / 2)
  denominator <- as.numeric(own)
  u_d <- denominator / slope
  total <- sum(denominator * f)
  answered <- sum(denominator * fitted)
  result <- list(answered = answered, estimate = numeric(answers),
                 ci_low = numeric(answers), ci_high = numeric(answers))
  # The variance when answer j's share among those who answered is t, the answered share and
  # the extra answers keeping their fitted shares and the other answers their proportions
  # (shares smoothed 1% towards even); a cubic in t, read off at four values of t.
  base <- 0.99 * fitted + 0.01 / k
  trials <- c(0, 1 / 3, 2 / 3, 1)
  for (j in seq_len(answers)) {
    u_j <- (seq_len(k) == j) / slope
    others <- ifelse(own & seq_len(k) != j, base, 0)
    values <- sapply(trials, function(t) {
      shares <- ifelse(own, 0, base) + others * (1 - t) * sum(base[own]) / sum(others)
      shares[j] <- t * sum(base[own])
      u_t <- u_j - t * u_d
      sum(moment(m, S, u_t, u_t) * shares)
    })
    variance <- solve(outer(trials, 0:3, `^`), values)
    headline <- if (answered > 0) fitted[j] / answered else NaN
    interval <- widen(score_interval(f[j], total, variance, n, z), headline)
    result$estimate[j] <- headline
    result$ci_low[j] <- interval[1]
    result$ci_high[j] <- interval[2]
  }
  if (scored) {  # the mean score, on [0, 1] as (score - 1) / (answers - 1)
    points <- ifelse(own, (seq_len(k) - 1) / (answers - 1), 0)
    u_a <- points / slope
    # The reports' own variance: the unbiased shares weigh their moments (times n / (n - 1))
    # for one-answer reports; the maximum-likelihood shares for unary ones.
    weights <- if (m$unary) fitted else f
    scale <- if (m$unary) 1 else if (n > 1) n / (n - 1) else Inf
    covariance <- function(x, y) {
      mean_x <- sum(as.vector(x %*% S) * weights)
      mean_y <- sum(as.vector(y %*% S) * weights)
      (sum(moment(m, S, x, y) * weights) - mean_x * mean_y) * scale
    }
    variance <- c(covariance(u_a, u_a), -2 * covariance(u_a, u_d), covariance(u_d, u_d), 0)
    headline <- if (answered > 0) sum(points * fitted) / answered else NaN
    interval <- widen(score_interval(sum(points * f), total, variance, n, z), headline)
    result$mean <- ratio_mean(answers - 1, 1, headline, interval, sum(points * f), total,
                              variance, n)
  }
  result
}

# ---- A conditional question: shares among those asked, with the question it depends on -------
#
# A follow-up asked only under some answers of its parent has "Not asked" as its last answer,
# given exactly when the parent's true answer is not one of them: the true joint table of the
# two questions is 0 in the other cells. Where both are randomized as one answer per report,
# the shares among those asked come from that table, fitted to the pairs of reports by EM
# (accelerated by SQUAREM) on the allowed cells; the intervals are Fieller's, from the
# linear unbiased estimate A p (p: the pairs' shares) with the variance at each candidate
# share, as for one question's reports above.

fit_joint <- function(S_a, S_b, joint, allowed, start) {
  total <- sum(joint)
  em <- function(pi) {  # the EM step from pi, the gap bound at pi, and P at pi
    fitted <- S_a %*% pi %*% t(S_b)
    gradient <- t(S_a) %*% (joint / fitted) %*% S_b
    list(step = pi * gradient / total, gap = max(gradient[allowed]) - total, fitted = fitted)
  }
  log_likelihood <- function(fitted) sum(joint * log(fitted))
  start[!allowed] <- 0
  start <- if (sum(start) > 0) start / sum(start) else allowed / sum(allowed)
  pi <- ifelse(allowed, 0.9 * start + 0.1 / sum(allowed), 0)
  for (round in 1:2000) {
    first <- em(pi)
    if (first$gap <= 0.01) break  # the log-likelihood is within 0.01 of its maximum
    second <- em(first$step)$step
    r <- first$step - pi
    v <- second - 2 * first$step + pi
    norm_v <- sqrt(sum(v * v))
    step <- if (norm_v > 0) min(-sqrt(sum(r * r)) / norm_v, -1) else -1
    candidate <- pi - 2 * step * r + step * step * v
    while (step < -1 && !all(candidate[allowed] > 0)) {
      step <- if (step < -1.02) (step - 1) / 2 else -1
      candidate <- pi - 2 * step * r + step * step * v
    }
    if (step < -1) {
      stabilised <- em(candidate)
      if (log_likelihood(stabilised$fitted) >= log_likelihood(first$fitted)) {
        pi <- stabilised$step
        next
      }
    }
    pi <- second
  }
  pi / sum(pi)
}

# Ratios (numerators . pi) / (denominator . pi) with Fieller's intervals from the unbiased
# shares and each row's variance, headlines from the fitted ones; with `scored`, the last
# row is the mean score's (on [0, 1]), given back on 1..answers.
fieller_ratios <- function(numerators, denominator, unbiased, fitted, variance, n, z, scored) {
  total <- sum(denominator * unbiased)
  answered <- sum(denominator * fitted)
  rows <- nrow(numerators)
  estimate <- low <- high <- numeric(rows)
  for (j in seq_len(rows)) {
    headline <- if (answered > 0) sum(numerators[j, ] * fitted) / answered else NaN
    interval <- widen(score_interval(sum(numerators[j, ] * unbiased), total, variance[j, ], n,
                                     z), headline)
    estimate[j] <- headline; low[j] <- interval[1]; high[j] <- interval[2]
  }
  shares <- if (scored) seq_len(rows - 1) else seq_len(rows)
  result <- list(answered = answered, estimate = estimate[shares], ci_low = low[shares],
                 ci_high = high[shares])
  if (scored) {
    result$mean <- ratio_mean(rows - 2, 1, estimate[rows], c(low[rows], high[rows]),
                              sum(numerators[rows, ] * unbiased), total, variance[rows, ], n)
  }
  result
}

among_asked <- function(parent, child, parent_reports, child_reports, condition, answers,
                        scored) {
  k_a <- parent$k; k_b <- child$k
  n <- length(child_reports)
  joint <- matrix(tabulate(parent_reports * k_b + child_reports + 1, k_a * k_b), k_a, k_b,
                  byrow = TRUE)
  S_a <- support_matrix(parent); S_b <- support_matrix(child)
  asked <- (seq_len(k_a) - 1) %in% condition
  shown <- seq_len(k_b) < k_b
  allowed <- outer(asked, shown, "&") | outer(!asked, !shown, "&")
  start <- outer(project_simplex(unbiased(parent, rowSums(joint), n)),
                 project_simplex(unbiased(child, colSums(joint), n)))
  pi <- fit_joint(S_a, S_b, joint, allowed, start)
  cells <- which(as.vector(t(allowed)))  # the allowed cells, row by row
  fitted <- as.vector(t(pi))[cells]
  M <- kronecker(S_a, S_b)[, cells, drop = FALSE]  # P(pair of reports | allowed cell)
  law <- as.vector(M %*% fitted)
  weighted <- M / law
  linear <- solve(t(M) %*% weighted, t(weighted))  # A: unbiased, A M = I
  unbiased_cells <- as.vector(linear %*% (as.vector(t(joint)) / n))
  parents <- (cells - 1) %/% k_b
  columns <- (cells - 1) %% k_b
  own <- parents %in% condition & columns < answers
  numerators <- t(sapply(seq_len(answers) - 1, function(j) as.numeric(own & columns == j)))
  smoothed <- 0.99 * fitted + 0.01 / length(cells)
  trials <- c(0, 1 / 3, 2 / 3, 1)
  # V(t) when answer j's share among those who answered is t: its cells hold t D, the other
  # own answers' (1 - t) D in their proportions, the rest stays; a cubic read off at 4 points.
  candidate_variance <- function(numerator) {
    mine <- numerator > 0
    others <- own & !mine
    answered <- sum(smoothed[own])
    values <- sapply(trials, function(t) {
      shares <- ifelse(own, 0, smoothed)
      if (any(others)) {
        shares[others] <- smoothed[others] * (1 - t) * answered / sum(smoothed[others])
      }
      shares[mine] <- smoothed[mine] * t * answered / sum(smoothed[mine])
      per_report <- as.vector((numerator - t * own) %*% linear)
      sum(as.vector(M %*% shares) * per_report^2)
    })
    solve(outer(trials, 0:3, `^`), values)
  }
  variance <- t(apply(numerators, 1, candidate_variance))
  if (scored) {  # the mean score: the plug-in variance at the fitted table
    points <- ifelse(own, columns / max(answers - 1, 1), 0)
    u_a <- as.vector(points %*% linear); u_d <- as.vector(own %*% linear)
    mean_a <- sum(points * fitted); mean_d <- sum(own * fitted)
    covariance <- function(x, mean_x, y, mean_y) sum(law * x * y) - mean_x * mean_y
    numerators <- rbind(numerators, points)
    variance <- rbind(variance, c(covariance(u_a, mean_a, u_a, mean_a),
                                  -2 * covariance(u_a, mean_a, u_d, mean_d),
                                  covariance(u_d, mean_d, u_d, mean_d), 0))
  }
  fieller_ratios(numerators, as.numeric(own), unbiased_cells, fitted, variance, n,
                 qnorm(1 - ALPHA / 2), scored)
}


# ---- Validation anchors -----------------------------------------------------------------------
#
# The reports supporting the anchored answer are Binomial(n, b + (a - b) known): the exact
# two-sided test of their count. A share c of careless respondents answering at random would
# move the answer's share to (1 - c) known + c / k: c from the unbiased share, bounded by its
# interval.

anchor_check <- function(m, found, counts, n, answer, known) {
  S <- support_matrix(m)
  c <- answer + 1
  own <- S[c, c]; other <- S[c, c %% m$k + 1]
  p_value <- binom.test(counts[c], n, other + (own - other) * known)$p.value
  even <- 1 / m$k
  if (abs(known - even) <= 1e-9 * max(abs(known), abs(even))) {
    return(list(p_value = p_value, careless = NaN, low = NaN, high = NaN))
  }
  ends <- clip((c(found$unbiased[c], found$ci_low[c], found$ci_high[c]) - known) /
                 (even - known), 0, 1)
  bounds <- sort(ends[2:3])
  list(p_value = p_value, careless = min(max(ends[1], bounds[1]), bounds[2]),
       low = bounds[1], high = bounds[2])
}


# ---- Check all that apply ---------------------------------------------------------------------
#
# Each respondent's browser picked one option at random and reported its box, ticked or not,
# through Warner's randomized response. Option j's share is a yes/no estimate from the
# reports about option j; the mean number of options ticked is k times the yes/no estimate
# of the share of reported boxes ticked, from all reports.

checkall_estimate <- function(spec, option, ticked, n) {
  k <- spec$k
  box <- randomization(list(mechanism = "rr", encoding = "bit", k = 2, epsilon = spec$epsilon))
  shares <- list(headline = numeric(k), ci_low = numeric(k), ci_high = numeric(k),
                 unbiased = numeric(k), std_error = numeric(k))
  for (j in seq_len(k)) {
    about <- sum(option == j - 1)
    yes <- sum(option == j - 1 & ticked == 1)
    if (about == 0) {  # no report was about this option: nothing is known
      one <- list(headline = 0.5, ci_low = 0, ci_high = 1, unbiased = 0.5, std_error = 0.5)
    } else {
      found <- estimate(box, c(about - yes, yes), about)
      one <- lapply(found, function(x) x[2])
    }
    for (key in names(shares)) shares[[key]][j] <- one[[key]]
  }
  shares$mle <- shares$consistent <- shares$headline  # each option's own share
  ones <- sum(ticked)
  all <- estimate(box, c(n - ones, ones), n)
  shares$mean <- list(estimate = k * all$headline[2], ci_low = k * all$ci_low[2],
                      ci_high = k * all$ci_high[2], unbiased = k * all$unbiased[2],
                      std_error = k * all$std_error[2])
  shares
}


# With extra boxes after the `options` options ("No answer", "Not asked", each ticked alone by
# those who gave it): each option's share among those who answered, pi_j / D with
# D = 1 - (the extra boxes' shares), and their mean number of options ticked, with Fieller's
# interval (the numerator and the denominator rest on different reports), each end found for
# an unbiased share half a report further out (Yates' continuity correction).
checkall_among <- function(spec, option, ticked, n, options) {
  k <- spec$k
  box <- randomization(list(mechanism = "rr", encoding = "bit", k = 2, epsilon = spec$epsilon))
  p <- box$a[2]
  about <- tabulate(option + 1, k)
  yes <- tabulate(option[ticked == 1] + 1, k)
  own <- seq_len(options)
  n_a <- c(about[own], sum(about[own]))  # each option's reports, then all options' together
  y_a <- c(yes[own], sum(yes[own]))
  n_e <- about[-own]
  y_e <- yes[-own]
  known_e <- all(n_e > 0)
  a <- 1 - p
  c <- 2 * p - 1
  f_a <- (y_a / pmax(n_a, 1) - a) / c  # Warner's unbiased shares
  f_e <- ifelse(n_e > 0, (y_e / pmax(n_e, 1) - a) / c, 0)
  fitted <- clip(1 - sum(clip(f_e, 0, 1)), 0, 1)
  w_e <- a + c * clip(f_e, 0, 1)
  d_variance <- sum(n * w_e * (1 - w_e) / (pmax(n_e, 1) * c * c))
  b <- c * fitted
  per_report <- n / (pmax(n_a, 1) * c * c)
  total <- if (known_e) 1 - sum(f_e) else 0
  z <- qnorm(1 - ALPHA / 2)
  estimate <- low <- high <- numeric(options + 1)
  for (j in seq_len(options + 1)) {
    variance <- c(per_report[j] * a * (1 - a), per_report[j] * b * c,
                  d_variance - per_report[j] * b * b, 0)  # the last one's is the mean's
    half <- 0.5 / (max(n_a[j], 1) * c)  # Yates' correction: half a report further out
    interval <- if (n_a[j] == 0) c(0, 1)
                else c(score_interval(f_a[j] - half, total, variance, n, z)[1],
                       score_interval(f_a[j] + half, total, variance, n, z)[2])
    headline <- if (known_e && fitted > 0 && n_a[j] > 0) clip(clip(f_a[j], 0, 1) / fitted, 0, 1)
                else NaN
    interval <- widen(interval, headline)
    estimate[j] <- headline; low[j] <- interval[1]; high[j] <- interval[2]
  }
  last <- options + 1
  list(answered = if (known_e) fitted else NaN, estimate = estimate[own], ci_low = low[own],
       ci_high = high[own],
       mean = ratio_mean(options, 0, estimate[last], c(low[last], high[last]), f_a[last],
                         total, variance, n))
}

# ---- Numbers ----------------------------------------------------------------------------------
#
# Each browser put the number on a grid over the range and reported one of 64 cells: one of a
# window of `width` cells around its place with probability p, another otherwise. The
# metadata's unbiased_values give each cell a value whose mean is the number: the mean is
# their average over the reports, with Student's t interval clipped to the range. The shares
# of the bins come from expectation-maximization with smoothing over the window's starts,
# accelerated by SQUAREM's extrapolation (no intervals).

number_mean <- function(spec, values, cells, n) {
  x <- values[cells + 1]
  average <- mean(x)
  std_error <- if (n > 1) sd(x) / sqrt(n) else Inf
  half <- if (n > 1) qt(1 - ALPHA / 2, n - 1) * std_error else Inf
  list(estimate = clip(average, spec$low, spec$high),
       ci_low = clip(average - half, spec$low, spec$high),
       ci_high = clip(average + half, spec$low, spec$high), unbiased = average,
       std_error = std_error)
}

# With extra answers, the mean among those who gave a number: the metadata's answered_values
# give each cell a value whose mean is 1 for a number and 0 for an extra answer, and the mean
# is sum(unbiased values) / sum(answered values), with Fieller's interval (Student's t).
number_mean_among <- function(spec, values, answered_values, cells, n) {
  span <- spec$high - spec$low
  a <- answered_values[cells + 1]
  v <- (values[cells + 1] - spec$low * a) / span  # positions on the range, 0 to 1
  if (n < 2) return(list(estimate = NaN, ci_low = spec$low, ci_high = spec$high,
                         unbiased = NaN, std_error = NaN))
  average <- mean(v)
  share <- mean(a)
  covariance <- function(x, y) sum((x - mean(x)) * (y - mean(y))) / (n - 1)
  variance <- c(covariance(v, v), -2 * covariance(v, a), covariance(a, a), 0)
  headline <- clip(if (share > 0) average / share else NaN, 0, 1)
  interval <- widen(score_interval(average, share, variance, n, qt(1 - ALPHA / 2, n - 1)),
                    headline)
  ratio_mean(span, spec$low, headline, interval, average, share, variance, n)
}

number_bins <- function(spec, cells, n) {
  grid <- spec$cells; width <- spec$width
  extras <- if (is.null(spec$extras)) 0 else spec$extras
  starts <- grid - width + 1
  outputs <- grid + extras * width
  # P(report cell c | window start s), then | extra answer e (a window after the grid).
  inside <- width * exp(spec$epsilon) / (width * exp(spec$epsilon) + outputs - width)
  first <- c(0:(starts - 1), grid + width * seq_len(extras) - width)
  cell <- 0:(outputs - 1)
  within <- outer(cell, first, function(c, s) c >= s & c < s + width)
  M <- ifelse(within, inside / width, (1 - inside) / (outputs - width))
  counts <- tabulate(cells + 1, outputs)
  columns <- starts + extras
  ems_step <- function(f) {  # EM, then smoothing of the starts' shares
    updated <- f * as.vector(t(M) %*% (counts / as.vector(M %*% f))) / n
    s <- updated[1:starts]
    padded <- c(s[1], s, s[starts])
    smoothed <- c((padded[1:starts] + 2 * padded[2:(starts + 1)] + padded[3:(starts + 2)]) / 4,
                  updated[-(1:starts)])
    smoothed / sum(smoothed)
  }
  # Until one step moves nothing by 1e-9, each two steps extrapolated (SQUAREM, S3).
  f <- rep(1 / columns, columns)
  steps <- 0
  while (steps < 5000) {
    f1 <- ems_step(f)
    r <- f1 - f
    if (max(abs(r)) < 1e-9) { f <- f1; break }
    f2 <- ems_step(f1)
    v <- f2 - 2 * f1 + f
    curvature <- sqrt(sum(v * v))
    a <- if (curvature > 0) min(-sqrt(sum(r * r)) / curvature, -1) else -1
    jump <- f - 2 * a * r + a * a * v
    f <- ems_step(if (all(jump > 0)) jump / sum(jump) else f2)
    steps <- steps + 3
  }
  # Each start's share spread over the values that lead to it (a triangle one start wide on
  # each side), summed within the bins.
  h <- 1 / (starts - 1)
  centres <- (0:(starts - 1)) * h
  span <- spec$high - spec$low
  cuts <- clip((c(spec$low, unlist(spec$edges), spec$high) - spec$low) / span, 0, 1)
  z <- clip(outer(centres, cuts, function(centre, x) (x - centre) / h), -1, 1)
  cdf <- ifelse(z < 0, (1 + z)^2 / 2, 1 - (1 - z)^2 / 2)
  mass <- t(apply(cdf, 1, diff))
  if (length(cuts) == 2) mass <- matrix(mass, ncol = 1)
  weights <- mass / rowSums(mass)
  c(as.vector(f[1:starts] %*% weights), f[-(1:starts)])
}


# ---- Every question -------------------------------------------------------------------------

number_text <- function(x) ifelse(is.na(x), NA, sprintf("%.17g", x))

redo <- function(prefix) {
  metadata <- fromJSON(paste0(prefix, "-metadata.json"), simplifyVector = FALSE)
  reports <- read.csv(paste0(prefix, "-reports.csv"), check.names = FALSE,
                      colClasses = "character", encoding = "UTF-8")
  by_position <- list()
  for (question in metadata$questions) by_position[[question$position]] <- question
  rows <- list()
  for (question in metadata$questions) {
    spec <- question$mechanism
    columns <- unlist(question$columns)
    labels <- unlist(question$labels)
    extras <- question$extra_answers
    answers <- length(labels) - extras  # its own answers (a number's bins), then the extras
    # The respondents asked it: in a survey that asks each a random few, the others' cells
    # are empty (not drawn).
    asked <- reports[[columns[1]]] != ""
    n <- sum(asked)
    if (n == 0) {
      cat(sprintf("%d. %s: no responses yet\n", question$position, question$text))
      next
    }
    values <- lapply(columns, function(column) as.integer(reports[[column]][asked]))
    mean <- NULL
    among <- NULL
    anchor <- NULL
    scored <- !is.null(question$scores)  # a rating scale: points 1..answers
    if (question$encoding == "sampled") {  # check all that apply
      found <- checkall_estimate(spec, values[[1]], values[[2]], n)
      mean <- found$mean
      if (extras > 0) {
        among <- checkall_among(spec, values[[1]], values[[2]], n, answers)
        mean <- among$mean  # the mean number ticked among those who answered
      }
    } else if (question$encoding == "number") {  # a number: its mean; its bins' shares
      shares <- number_bins(spec, values[[1]], n)
      none <- rep(NA, length(shares))
      found <- list(headline = shares, ci_low = none, ci_high = none, unbiased = shares,
                    std_error = none, mle = shares, consistent = shares)
      unbiased_values <- unlist(question$unbiased_values)
      mean <- if (extras == 0) number_mean(spec, unbiased_values, values[[1]], n)
              else number_mean_among(spec, unbiased_values, unlist(question$answered_values),
                                     values[[1]], n)
    } else {  # one answer (yes/no, multiple choice, rating scale)
      m <- randomization(spec)
      counts <- if (m$unary) sapply(values, sum) else tabulate(values[[1]] + 1, m$k)
      found <- estimate(m, counts, n)
      parent <- if (is.null(question$asked_if)) NULL
                else by_position[[question$asked_if$position]]
      if (extras > 0 && !is.null(parent) && !m$unary &&
          parent$encoding %in% c("bit", "index")) {
        # Asked under the answer of a question randomized as one answer per report too:
        # jointly with it, from the respondents asked both.
        both <- asked & reports[[parent$columns[[1]]]] != ""
        among <- among_asked(randomization(parent$mechanism), m,
                             as.integer(reports[[parent$columns[[1]]]][both]),
                             as.integer(reports[[columns[1]]][both]),
                             question$asked_if$answer, answers, scored)
        mean <- among$mean
      } else if (extras > 0) {
        among <- among_answered(m, counts, n, answers, scored)
        mean <- among$mean  # the mean score among those who answered
      } else if (scored) {
        mean <- mean_score(m, counts, n)
      }
      if (!is.null(question$anchor)) {
        anchor <- anchor_check(m, found, counts, n, question$anchor$answer,
                               question$anchor$known)
      }
    }
    # The share who answered that the page states: one less the extra answers' shares.
    answered <- if (extras > 0) 1 - sum(found$headline[-seq_len(answers)]) else NA
    half <- qnorm(1 - ALPHA / 2) * found$std_error
    wald_low <- clip(found$unbiased - half, 0, 1)
    wald_high <- clip(found$unbiased + half, 0, 1)
    pick <- function(x, key) if (is.null(x)) NA else x[[key]]
    cat(sprintf("\n%d. %s (n = %d)\n", question$position, question$text, n))
    for (index in seq_along(labels)) {
      mine <- !is.null(among) && index <= answers
      rows[[length(rows) + 1]] <- data.frame(
        question = question$position, question_text = question$text,
        answer_index = index - 1, answer = labels[index], n = n,
        estimate = found$headline[index], ci_low = found$ci_low[index],
        ci_high = found$ci_high[index], unbiased = found$unbiased[index],
        std_error = found$std_error[index], unbiased_ci_low = wald_low[index],
        unbiased_ci_high = wald_high[index], mle = found$mle[index],
        consistent = found$consistent[index], mean = pick(mean, "estimate"),
        mean_ci_low = pick(mean, "ci_low"), mean_ci_high = pick(mean, "ci_high"),
        mean_unbiased = pick(mean, "unbiased"), mean_std_error = pick(mean, "std_error"),
        answered = answered,
        among_estimate = if (mine) among$estimate[index] else NA,
        among_ci_low = if (mine) among$ci_low[index] else NA,
        among_ci_high = if (mine) among$ci_high[index] else NA,
        anchor_p_value = pick(anchor, "p_value"), careless = pick(anchor, "careless"),
        careless_ci_low = pick(anchor, "low"), careless_ci_high = pick(anchor, "high"),
        stringsAsFactors = FALSE)
      if (is.na(found$ci_low[index])) {
        cat(sprintf("  %s: %.1f%%\n", labels[index], 100 * found$headline[index]))
      } else {
        cat(sprintf("  %s: %.1f%% (95%% interval %.1f%% to %.1f%%)\n", labels[index],
                    100 * found$headline[index], 100 * found$ci_low[index],
                    100 * found$ci_high[index]))
      }
    }
    if (!is.null(among)) {
      cat(sprintf("  among those who answered (%.1f%% of all):\n", 100 * answered))
      for (index in seq_along(among$estimate)) {
        cat(sprintf("    %s: %.1f%% (95%% interval %.1f%% to %.1f%%)\n", labels[index],
                    100 * among$estimate[index], 100 * among$ci_low[index],
                    100 * among$ci_high[index]))
      }
    }
    if (!is.null(mean)) {
      cat(sprintf("  mean%s: %.2f (95%% interval %.2f to %.2f)\n",
                  if (extras > 0) " among those who answered" else "", mean$estimate,
                  mean$ci_low, mean$ci_high))
    }
    if (!is.null(anchor)) {
      cat(sprintf("  validation anchor: p = %.3g, careless share %.1f%%\n", anchor$p_value,
                  100 * anchor$careless))
    }
  }
  write_rows(rows, COLUMNS, prefix, "-estimates-redone-R.csv")
  invisible(rows)
}

# A CSV file of rows (data frames), with every figure to full precision; none: just the header.
write_rows <- function(rows, columns, prefix, suffix) {
  table <- if (length(rows)) do.call(rbind, rows) else
    as.data.frame(setNames(replicate(length(columns), character(0), simplify = FALSE), columns))
  for (column in intersect(names(table), FIGURES)) table[[column]] <- number_text(table[[column]])
  output <- file.path(dirname(prefix), paste0(basename(prefix), suffix))
  write.csv(table[columns], output, row.names = FALSE, na = "", fileEncoding = "UTF-8")
}

arguments <- commandArgs(trailingOnly = TRUE)
redo(if (length(arguments) > 0) arguments[1] else PREFIX)
