/** Uploads (bars) and views (line) per day, with recharts. */
import { Box, Typography } from '@strapi/design-system';
import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { DayUsage } from '../../../../shared/contracts/usage';
import { useMessage } from '../../hooks/useMessage';

export function UsageChart({ days, label, height = 260 }: { days: DayUsage[]; label: string; height?: number }) {
  const t = useMessage();
  const data = days.map((day) => ({ ...day, date: day.day.slice(5) }));
  return (
    <Box data-testid="image-api-usage-chart" aria-label={label}>
      <Typography variant="sigma" textColor="neutral600" tag="h2">
        {label}
      </Typography>
      <Box paddingTop={3} style={{ width: '100%', height }}>
        <ResponsiveContainer>
          <ComposedChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="date" fontSize={11} interval="preserveStartEnd" />
            <YAxis yAxisId="uploads" allowDecimals={false} fontSize={11} />
            <YAxis yAxisId="views" orientation="right" allowDecimals={false} fontSize={11} />
            <Tooltip />
            <Legend />
            <Bar yAxisId="uploads" dataKey="uploads" name={t('usage.chart.uploads')} fill="#4945ff" isAnimationActive={false} />
            <Line yAxisId="views" dataKey="views" name={t('usage.chart.views')} stroke="#ee5e52" dot={false} isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      </Box>
    </Box>
  );
}
